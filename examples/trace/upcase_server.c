/*
 * upcase_server.c — a tiny server program, not a tattle test, that the
 * traced example trace_demo/exec_server_answers_short starts with fork
 * and exec: like an inetd service it reads one request on its standard
 * input and writes the answer, the request in capitals, on its standard
 * output. It has a bug on purpose: it answers only the request's first
 * word. Nothing here calls tattle; the traced test's report still shows
 * what it read and wrote (the preload library tattle hands down to the
 * programs a traced test executes records it).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char request[256];
    ssize_t got = read(STDIN_FILENO, request, sizeof request - 1);
    if (got <= 0)
        return 1;
    request[got] = '\0';
    char answer[256];
    /* The bug: %s stops at the first blank. */
    if (sscanf(request, "%254s", answer) != 1)
        return 1;
    for (char *c = answer; *c != '\0'; c++)
        *c = (char)toupper((unsigned char)*c);
    size_t length = strlen(answer);
    answer[length++] = '\n';
    return write(STDOUT_FILENO, answer, length) == (ssize_t)length ? 0 : 1;
}
