/*
 * default_main.c — the main() of tattle::main: runs the registered tests.
 */
#include <tattle/tattle.h>

int main(int argc, char **argv)
{
    return tattle_main(argc, argv);
}
