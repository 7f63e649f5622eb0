/*
 * fixture_capture.c — traced tests whose messages go through the kernel
 * (pipes, socketpairs, eventfds) with no tracer call in the exchange, for
 * test_capture_e2e.py: what the automatic message capture records, what it
 * leaves out (regular files, the runner's stdout capture), that every call
 * keeps its semantics (partial transfers, EAGAIN, EBADF, use from a signal
 * handler, vfork), that `trace_messages:noipc` turns it off, and that a
 * test that overwrites the capture's state in its arena cannot crash the
 * runner.
 *
 * Each test passes when the calls behave as libc's; the driver runs them
 * with --trace-passed and checks their traces.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ, gettid */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

#include "reused_numbers.h"
#include "tracer/arena.h"

enum { JOB_BYTES = 16, JOBS = 6, WORKERS = 2 };

/* Every getpid call of the process, the capture's own included: this
 * definition comes before libc's for the whole program. */
static _Atomic unsigned long getpid_calls;

pid_t getpid(void)
{
    atomic_fetch_add_explicit(&getpid_calls, 1, memory_order_relaxed);
    return (pid_t)syscall(SYS_getpid);
}

struct pool {
    int jobs_read_end;
    int done[WORKERS];
};

struct worker {
    struct pool *pool;
    int index;
};

static void *work(void *argument)
{
    struct worker *worker = argument;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", worker->index);
    tattle_actor_name(name);
    char job[JOB_BYTES];
    while (read(worker->pool->jobs_read_end, job, sizeof job) == JOB_BYTES)
        worker->pool->done[worker->index]++;
    return NULL;
}

/* A TCP socket listening on an ephemeral loopback port with `backlog`,
 * its address in *address; -1 when any step failed. */
static int loopback_listener(int backlog, struct sockaddr_in *address)
{
    *address = (struct sockaddr_in){.sin_family = AF_INET,
                                    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof *address;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0)
        return -1;
    if (bind(listener, (struct sockaddr *)address, length) != 0 ||
        listen(listener, backlog) != 0 ||
        getsockname(listener, (struct sockaddr *)address, &length) != 0) {
        close(listener);
        return -1;
    }
    return listener;
}

/* A boss hands six 16-byte jobs to two workers through one pipe. */
TEST(ipc, pipe_pool, .tags = "trace_messages")
{
    int jobs[2];
    ASSERT_EQ(pipe(jobs), 0);
    struct pool pool = {.jobs_read_end = jobs[0]};
    struct worker workers[WORKERS];
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (struct worker){&pool, i};
        ASSERT_EQ(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
    }
    tattle_actor_name("boss");
    for (int i = 0; i < JOBS; i++) {
        char job[JOB_BYTES + 1];
        snprintf(job, sizeof job, "job %d ----------", i);
        ASSERT_EQ(write(jobs[1], job, JOB_BYTES), JOB_BYTES);
    }
    close(jobs[1]);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    close(jobs[0]);
    EXPECT_EQ(pool.done[0] + pool.done[1], JOBS);
}

struct parts_reader {
    int read_end;
    char first[6], second[6];
    ssize_t got_first, got_second;
};

static void *read_in_parts(void *argument)
{
    struct parts_reader *reader = argument;
    tattle_actor_name("reader");
    reader->got_first = read(reader->read_end, reader->first, 6);
    reader->got_second = read(reader->read_end, reader->second, 6);
    return NULL;
}

/* A thread reads one 12-byte write through a pipe in two reads of six:
 * both receives are of that one send. */
TEST(ipc, pipe_to_thread, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    tattle_actor_name("writer");
    ASSERT_EQ(write(fds[1], "hello, world", 12), 12);
    struct parts_reader reader = {.read_end = fds[0]};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, read_in_parts, &reader), 0);
    pthread_join(thread, NULL);
    EXPECT_EQ(reader.got_first, 6);
    EXPECT_EQ(reader.got_second, 6);
    EXPECT_EQ(memcmp(reader.first, "hello,", 6), 0);
    EXPECT_EQ(memcmp(reader.second, " world", 6), 0);
    close(fds[0]);
    close(fds[1]);
}

struct gathering_reader {
    int pipe_end, socket_end;
    char from_pipe[16], from_socket[16];
    ssize_t got_from_pipe, got_from_socket;
};

static void *read_both_at_once(void *argument)
{
    struct gathering_reader *reader = argument;
    tattle_actor_name("gatherer");
    reader->got_from_pipe = read(reader->pipe_end, reader->from_pipe, 12);
    reader->got_from_socket =
        recv(reader->socket_end, reader->from_socket, 10, 0);
    return NULL;
}

/* Two writes into a pipe and two sends into a stream socketpair, each
 * pair taken by one read (recv) of a thread started after both: every
 * send was received. */
TEST(ipc, two_writes_one_read, .tags = "trace_messages")
{
    int fds[2], pair[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    tattle_actor_name("scatterer");
    ASSERT_EQ(write(fds[1], "first-", 6), 6);
    ASSERT_EQ(write(fds[1], "second", 6), 6);
    ASSERT_EQ(send(pair[0], "ping-", 5, 0), 5);
    ASSERT_EQ(send(pair[0], "pong!", 5, 0), 5);
    struct gathering_reader reader = {.pipe_end = fds[0],
                                      .socket_end = pair[1]};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, read_both_at_once, &reader), 0);
    pthread_join(thread, NULL);
    EXPECT_EQ(reader.got_from_pipe, 12);
    EXPECT_EQ(memcmp(reader.from_pipe, "first-second", 12), 0);
    EXPECT_EQ(reader.got_from_socket, 10);
    EXPECT_EQ(memcmp(reader.from_socket, "ping-pong!", 10), 0);
    close(fds[0]);
    close(fds[1]);
    close(pair[0]);
    close(pair[1]);
}

/* Two writes, one read taking the whole first and two bytes of the
 * second: three bytes of it wait in the pipe at the end. */
TEST(ipc, read_across_writes_partly, .tags = "trace_messages")
{
    tattle_actor_name("producer");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "abc", 3), 3);
    ASSERT_EQ(write(fds[1], "defgh", 5), 5);
    char got[5];
    ASSERT_EQ(read(fds[0], got, sizeof got), 5);
    EXPECT_EQ(memcmp(got, "abcde", 5), 0);
}

static const char forty_bytes[] = "datagram of forty bytes, 8 of them fit.";

/* Receives with MSG_TRUNC return a datagram's whole length however little
 * of it fits, into a buffer with more after it, into a heap buffer of 8
 * bytes and into two iovecs of 4; on TCP they discard bytes into no
 * buffer at all. Each returns what libc returns; the trace must hold only
 * the bytes that landed in the buffers. */
TEST(ipc, recv_truncated, .tags = "trace_messages")
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, pair), 0);
    ssize_t whole = (ssize_t)sizeof forty_bytes - 1;
    ASSERT_EQ(whole, 39);
    char area[64];
    memset(area, 'Z', sizeof area);
    ASSERT_EQ(send(pair[0], forty_bytes, (size_t)whole, 0), whole);
    EXPECT_EQ(recv(pair[1], area, 8, MSG_TRUNC), whole);
    EXPECT_EQ(memcmp(area, "datagram", 8), 0);
    EXPECT_EQ(area[8], 'Z');

    char *heap = malloc(8);
    ASSERT_NOT_NULL(heap);
    ASSERT_EQ(send(pair[0], forty_bytes, (size_t)whole, 0), whole);
    EXPECT_EQ(recvfrom(pair[1], heap, 8, MSG_TRUNC, NULL, NULL), whole);
    EXPECT_EQ(memcmp(heap, "datagram", 8), 0);
    free(heap);

    char first[4], second[4];
    struct iovec parts[2] = {{first, 4}, {second, 4}};
    struct msghdr message = {.msg_iov = parts, .msg_iovlen = 2};
    ASSERT_EQ(send(pair[0], forty_bytes, (size_t)whole, 0), whole);
    EXPECT_EQ(recvmsg(pair[1], &message, MSG_TRUNC), whole);
    EXPECT(message.msg_flags & MSG_TRUNC);
    EXPECT_EQ(memcmp(first, "data", 4), 0);
    EXPECT_EQ(memcmp(second, "gram", 4), 0);
    close(pair[0]);
    close(pair[1]);

    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int listener = loopback_listener(1, &address);
    ASSERT_GE(listener, 0);
    int client = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(client, 0);
    ASSERT_EQ(connect(client, (struct sockaddr *)&address, length), 0);
    int server = accept(listener, NULL, NULL);
    ASSERT_GE(server, 0);
    ASSERT_EQ(send(client, "discarded", 9, 0), 9);
    ASSERT_EQ(send(client, "kept", 4, 0), 4);
    ssize_t dropped = 0;
    while (dropped < 9) {
        ssize_t got = recv(server, NULL, (size_t)(9 - dropped), MSG_TRUNC);
        ASSERT_GT(got, 0);
        dropped += got;
    }
    char kept[8];
    size_t have = 0;
    while (have < 4) {
        ssize_t got = recv(server, kept + have, 4 - have, 0);
        ASSERT_GT(got, 0);
        have += (size_t)got;
    }
    EXPECT_EQ(memcmp(kept, "kept", 4), 0);
    close(server);
    close(client);
    close(listener);
}

/* Death checks whose statements write to their stderr before they die:
 * the checks' pipes are tattle's, not messages of the test; one pipe
 * message shows the capture was on. */
TEST(ipc, death_checks, .tags = "trace_messages")
{
    ASSERT_SIGNAL(
        {
            if (write(STDERR_FILENO, "dying loudly\n", 13) == 13)
                raise(SIGABRT);
        },
        SIGABRT);
    EXPECT_EXIT(
        {
            if (write(STDERR_FILENO, "leaving\n", 8) == 8)
                _exit(3);
        },
        3);
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    ASSERT_EQ(write(pipe_fds[1], "only this", 9), 9);
    char back[16];
    ASSERT_EQ(read(pipe_fds[0], back, sizeof back), 9);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

static void *serve_hello(void *argument)
{
    int listener = *(int *)argument;
    tattle_actor_name("server");
    int filler = accept(listener, NULL, NULL); /* frees the backlog */
    if (filler < 0)
        return NULL;
    close(filler);
    int connection = accept(listener, NULL, NULL);
    char request[8];
    size_t have = 0;
    while (connection >= 0 && have < 5) {
        ssize_t got = read(connection, request + have, 5 - have);
        if (got <= 0)
            break;
        have += (size_t)got;
    }
    if (have == 5 && memcmp(request, "hello", 5) == 0)
        have = write(connection, "world", 5) == 5 ? 6 : 0;
    if (connection >= 0)
        close(connection);
    return (void *)(have == 6 ? "served" : NULL);
}

/* A client connects a non-blocking socket over loopback TCP while the
 * listener's backlog is full, so its SYN is dropped and the connect is
 * still in progress when it returns (and a while after: the kernel sends
 * the SYN again after a second); then it says hello to a server thread,
 * which frees the backlog before it accepts the client. */
TEST(ipc, nonblocking_connect, .tags = "trace_messages")
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int listener = loopback_listener(0, &address);
    ASSERT_GE(listener, 0);
    tattle_actor_name("client");
    int filler = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(filler, 0);
    ASSERT_EQ(connect(filler, (struct sockaddr *)&address, length), 0);
    int client = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(client, 0);
    int connected = connect(client, (struct sockaddr *)&address, length);
    int connect_errno = connected == 0 ? 0 : errno;
    printf("connect: %s\n", connected == 0 ? "done"
                            : connect_errno == EINPROGRESS
                                ? "in progress"
                                : strerror(connect_errno));
    ASSERT(connected == 0 || connect_errno == EINPROGRESS);
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, serve_hello, &listener), 0);
    struct pollfd writable = {.fd = client, .events = POLLOUT};
    ASSERT_EQ(poll(&writable, 1, -1), 1);
    int error = -1;
    socklen_t error_length = sizeof error;
    ASSERT_EQ(getsockopt(client, SOL_SOCKET, SO_ERROR, &error, &error_length),
              0);
    ASSERT_EQ(error, 0);
    ASSERT_EQ(send(client, "hello", 5, 0), 5);
    struct pollfd readable = {.fd = client, .events = POLLIN};
    char reply[8];
    size_t have = 0;
    while (have < 5) {
        ASSERT_EQ(poll(&readable, 1, -1), 1);
        ssize_t got = recv(client, reply + have, 5 - have, 0);
        ASSERT_GT(got, 0);
        have += (size_t)got;
    }
    EXPECT_EQ(memcmp(reply, "world", 5), 0);
    void *served = NULL;
    pthread_join(thread, &served);
    EXPECT_NOT_NULL(served);
    close(filler);
    close(client);
    close(listener);
}

/* A client and a forked server over a socketpair: a request, a reply. */
TEST(ipc, socketpair_fork, .tags = "trace_messages")
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    pid_t server = fork();
    ASSERT_NE(server, -1);
    if (server == 0) {
        tattle_actor_name("server");
        close(pair[0]);
        char request[32];
        ssize_t got = recv(pair[1], request, sizeof request, 0);
        if (got != 4 || memcmp(request, "ping", 4) != 0)
            _exit(2);
        _exit(send(pair[1], "pong", 4, 0) == 4 ? 0 : 3);
    }
    tattle_actor_name("client");
    close(pair[1]);
    ASSERT_EQ(write(pair[0], "ping", 4), 4);
    char reply[32];
    ASSERT_EQ(read(pair[0], reply, sizeof reply), 4);
    EXPECT_EQ(memcmp(reply, "pong", 4), 0);
    int status = 0;
    ASSERT_EQ(waitpid(server, &status, 0), server);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(pair[0]);
}

/* The client side of a connection, in a forked process: hello, then
 * waits for the reply. Exits 0 when the exchange went as planned. */
static void run_client(const struct sockaddr *address, socklen_t length,
                       int family)
{
    tattle_actor_name("client");
    int connection = socket(family, SOCK_STREAM, 0);
    if (connection < 0 || connect(connection, address, length) != 0)
        _exit(2);
    if (send(connection, "hello", 5, 0) != 5)
        _exit(3);
    char reply[16];
    ssize_t got = recv(connection, reply, sizeof reply, 0);
    close(connection);
    _exit(got == 5 && memcmp(reply, "world", 5) == 0 ? 0 : 4);
}

/* The server side: accepts one client, reads its hello, answers. */
static void serve_one(int listener, pid_t client)
{
    tattle_actor_name("server");
    int connection = accept(listener, NULL, NULL);
    ASSERT_GE(connection, 0);
    char request[16];
    ASSERT_EQ(read(connection, request, sizeof request), 5);
    EXPECT_EQ(memcmp(request, "hello", 5), 0);
    ASSERT_EQ(write(connection, "world", 5), 5);
    int status = 0;
    ASSERT_EQ(waitpid(client, &status, 0), client);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(connection);
    close(listener);
}

/* A client and a server over loopback TCP. */
TEST(ipc, tcp_loopback, .tags = "trace_messages")
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int listener = loopback_listener(1, &address);
    ASSERT_GE(listener, 0);
    pid_t client = fork();
    ASSERT_NE(client, -1);
    if (client == 0)
        run_client((struct sockaddr *)&address, length, AF_INET);
    serve_one(listener, client);
}

/* A client and a server over a Unix socket with a path. */
TEST(ipc, unix_path, .tags = "trace_messages")
{
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path,
             "/tmp/tattle-capture-%d.sock", (int)getpid());
    unlink(address.sun_path);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(listener, 0);
    ASSERT_EQ(bind(listener, (struct sockaddr *)&address, sizeof address), 0);
    ASSERT_EQ(listen(listener, 1), 0);
    pid_t client = fork();
    ASSERT_NE(client, -1);
    if (client == 0)
        run_client((struct sockaddr *)&address, sizeof address, AF_UNIX);
    serve_one(listener, client);
    unlink(address.sun_path);
}

static void *wake(void *argument)
{
    int event = *(int *)argument;
    tattle_actor_name("waker");
    uint64_t one = 1;
    if (write(event, &one, sizeof one) != sizeof one)
        abort();
    return NULL;
}

/* A thread wakes the main thread through an eventfd. */
TEST(ipc, eventfd_wakeup, .tags = "trace_messages")
{
    int event = eventfd(0, EFD_CLOEXEC);
    ASSERT_GE(event, 0);
    tattle_actor_name("sleeper");
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, wake, &event), 0);
    eventfd_t value = 0;
    ASSERT_EQ(eventfd_read(event, &value), 0);
    EXPECT_EQ(value, 1);
    pthread_join(thread, NULL);
    close(event);
}

struct tokens {
    int event;
    eventfd_t got[3];
    int results[3];
};

static void *take_three(void *argument)
{
    struct tokens *tokens = argument;
    tattle_actor_name("taker");
    for (int i = 0; i < 3; i++)
        tokens->results[i] = eventfd_read(tokens->event, &tokens->got[i]);
    return NULL;
}

/* An EFD_SEMAPHORE eventfd: a write of 1, then a write of 2; a thread
 * takes three tokens, one a read. */
TEST(ipc, eventfd_semaphore, .tags = "trace_messages")
{
    int event = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    ASSERT_GE(event, 0);
    tattle_actor_name("poster");
    ASSERT_EQ(eventfd_write(event, 1), 0);
    uint64_t two = 2;
    ASSERT_EQ(write(event, &two, sizeof two), (ssize_t)sizeof two);
    struct tokens tokens = {.event = event};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, take_three, &tokens), 0);
    pthread_join(thread, NULL);
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(tokens.results[i], 0);
        EXPECT_EQ(tokens.got[i], 1);
    }
    close(event);
}

struct queue_consumer {
    mqd_t queue;
    char got[3][32];
    ssize_t lengths[3];
    unsigned priorities[3];
};

static void *consume_three(void *argument)
{
    struct queue_consumer *consumer = argument;
    tattle_actor_name("consumer");
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 3600;
    for (int i = 0; i < 3; i++)
        consumer->lengths[i] =
            i == 1
                ? mq_timedreceive(consumer->queue, consumer->got[i],
                                  sizeof consumer->got[i],
                                  &consumer->priorities[i], &deadline)
                : mq_receive(consumer->queue, consumer->got[i],
                             sizeof consumer->got[i], &consumer->priorities[i]);
    return NULL;
}

/* Opens a new queue named PREFIX-PID (an old one of that name removed
 * first) holding `count` messages of `size` bytes, its name in `name`;
 * skips the test where the machine has no POSIX queues. */
static mqd_t open_new_queue(char *name, size_t room, const char *prefix,
                            long count, long size)
{
    snprintf(name, room, "%s-%d", prefix, (int)getpid());
    struct mq_attr attributes = {.mq_maxmsg = count, .mq_msgsize = size};
    mq_unlink(name);
    mqd_t queue = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attributes);
    if (queue == (mqd_t)-1 && (errno == ENOSYS || errno == EACCES))
        SKIP("no POSIX message queues here: %s", strerror(errno));
    ASSERT_NE(queue, (mqd_t)-1);
    return queue;
}

/* A queue unlinked right after it is opened, then used: it keeps the
 * name it was opened by. */
TEST(ipc, mq_unlinked, .tags = "trace_messages")
{
    char name[64];
    mqd_t queue = open_new_queue(name, sizeof name, "/tattle-unlinked", 2, 16);
    printf("queue: %s\n", name);
    ASSERT_EQ(mq_unlink(name), 0);
    ASSERT_EQ(mq_send(queue, "unlinked", 8, 0), 0);
    char got[16];
    EXPECT_EQ(mq_receive(queue, got, sizeof got, NULL), 8);
    EXPECT_EQ(mq_close(queue), 0);
}

/* A producer queues two messages of priority 1 and one of priority 9 on a
 * POSIX message queue (mq_send, mq_timedsend), then a thread takes them
 * (mq_receive, mq_timedreceive): the urgent one comes out first. */
TEST(ipc, mq_priorities, .tags = "trace_messages")
{
    char name[64];
    mqd_t queue = open_new_queue(name, sizeof name, "/tattle-capture", 4, 32);
    tattle_actor_name("producer");
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 3600;
    ASSERT_EQ(mq_send(queue, "low one", 7, 1), 0);
    ASSERT_EQ(mq_timedsend(queue, "low two", 7, 1, &deadline), 0);
    ASSERT_EQ(mq_send(queue, "urgent", 6, 9), 0);
    struct queue_consumer consumer = {.queue = queue};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, consume_three, &consumer), 0);
    pthread_join(thread, NULL);
    const char *expected[3] = {"urgent", "low one", "low two"};
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(consumer.lengths[i], (ssize_t)strlen(expected[i]));
        EXPECT_EQ(consumer.priorities[i], i == 0 ? 9u : 1u);
        EXPECT_EQ(memcmp(consumer.got[i], expected[i], strlen(expected[i])), 0);
    }
    errno = 0;
    EXPECT_EQ(mq_receive(queue, consumer.got[0], 4, NULL), -1);
    EXPECT_EQ(errno, EMSGSIZE);
    EXPECT_EQ(mq_close(queue), 0);
    mq_unlink(name);
    printf("queue: %s\n", name);
}

/* A message put on a queue where the capture does not see it (a raw
 * system call, as a program outside the test would), then one by
 * mq_send: the receive of the first is of no recorded send, the receive
 * of the second is of its own. */
TEST(ipc, mq_unseen_sender, .tags = "trace_messages")
{
    char name[64];
    mqd_t queue = open_new_queue(name, sizeof name, "/tattle-unseen", 2, 16);
    ASSERT_EQ(mq_unlink(name), 0);
    ASSERT_EQ(
        syscall(SYS_mq_timedsend, queue, "unseen", (size_t)6, 0u, (void *)NULL),
        0);
    ASSERT_EQ(mq_send(queue, "seen", 4, 0), 0);
    char got[16];
    EXPECT_EQ(mq_receive(queue, got, sizeof got, NULL), 6);
    EXPECT_EQ(memcmp(got, "unseen", 6), 0);
    EXPECT_EQ(mq_receive(queue, got, sizeof got, NULL), 4);
    EXPECT_EQ(memcmp(got, "seen", 4), 0);
    EXPECT_EQ(mq_close(queue), 0);
}

struct vector_receiver {
    int datagrams, stream;
    char got[4][16];
    int first, second;
    unsigned lengths[4];
};

static void *receive_vectors(void *argument)
{
    struct vector_receiver *receiver = argument;
    tattle_actor_name("receiver");
    struct iovec parts[4];
    struct mmsghdr messages[4];
    memset(messages, 0, sizeof messages);
    for (int i = 0; i < 4; i++) {
        parts[i] = (struct iovec){receiver->got[i], sizeof receiver->got[i]};
        messages[i].msg_hdr.msg_iov = &parts[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    receiver->first = recvmmsg(receiver->datagrams, messages, 2, 0, NULL);
    receiver->second = recvmmsg(receiver->datagrams, messages + 2, 1, 0, NULL);
    parts[3].iov_len = 4;
    if (recvmmsg(receiver->stream, messages + 3, 1, MSG_WAITALL, NULL) != 1)
        receiver->second = -1;
    for (int i = 0; i < 4; i++)
        receiver->lengths[i] = messages[i].msg_len;
    return NULL;
}

/* Three datagrams sent in one sendmmsg, taken by a thread in two recvmmsg
 * calls (two, then one); two stream messages in one sendmmsg, read back
 * in one recvmmsg of four bytes. */
TEST(ipc, mmsg_vectors, .tags = "trace_messages")
{
    int datagrams[2], stream[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, datagrams), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, stream), 0);
    tattle_actor_name("sender");
    const char *texts[3] = {"first", "second", "third"};
    struct iovec parts[3];
    struct mmsghdr messages[3];
    memset(messages, 0, sizeof messages);
    for (int i = 0; i < 3; i++) {
        parts[i] = (struct iovec){(void *)texts[i], strlen(texts[i])};
        messages[i].msg_hdr.msg_iov = &parts[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    ASSERT_EQ(sendmmsg(datagrams[0], messages, 3, 0), 3);
    parts[0] = (struct iovec){"ab", 2};
    parts[1] = (struct iovec){"cd", 2};
    ASSERT_EQ(sendmmsg(stream[0], messages, 2, 0), 2);
    struct vector_receiver receiver = {.datagrams = datagrams[1],
                                       .stream = stream[1]};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, receive_vectors, &receiver), 0);
    pthread_join(thread, NULL);
    EXPECT_EQ(receiver.first, 2);
    EXPECT_EQ(receiver.second, 1);
    const char *expected[4] = {"first", "second", "third", "abcd"};
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(receiver.lengths[i], (unsigned)strlen(expected[i]));
        EXPECT_EQ(memcmp(receiver.got[i], expected[i], strlen(expected[i])), 0);
    }
    close(datagrams[0]);
    close(datagrams[1]);
    close(stream[0]);
    close(stream[1]);
}

enum { DATAGRAMS_ASKED = 64, DATAGRAM_BYTES = 7 };

/* sendmmsg of 64 datagrams on a non-blocking socket whose send buffer
 * (SO_SNDBUF at its least: a Unix datagram counts there until its peer
 * takes it) fills first: it sends fewer than asked, the next fails with
 * EAGAIN, and the peer receives the ones sent, in order. */
TEST(ipc, sendmmsg_partial, .tags = "trace_messages")
{
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, pair), 0);
    int least = 1;
    ASSERT_EQ(setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &least, sizeof least),
              0);
    static char texts[DATAGRAMS_ASKED][DATAGRAM_BYTES + 1];
    struct iovec parts[DATAGRAMS_ASKED];
    struct mmsghdr messages[DATAGRAMS_ASKED];
    memset(messages, 0, sizeof messages);
    for (int i = 0; i < DATAGRAMS_ASKED; i++) {
        snprintf(texts[i], sizeof texts[i], "dgram%02d", i);
        parts[i] = (struct iovec){texts[i], DATAGRAM_BYTES};
        messages[i].msg_hdr.msg_iov = &parts[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    int sent = sendmmsg(pair[0], messages, DATAGRAMS_ASKED, 0);
    ASSERT_GT(sent, 0);
    if (sent == DATAGRAMS_ASKED)
        SKIP("the socket queued all %d datagrams: nothing partial", sent);
    printf("sent: %d of %d\n", sent, DATAGRAMS_ASKED);
    for (int i = 0; i < sent; i++)
        EXPECT_EQ(messages[i].msg_len, (unsigned)DATAGRAM_BYTES);
    errno = 0;
    EXPECT_EQ(sendmmsg(pair[0], messages + sent,
                       (unsigned)(DATAGRAMS_ASKED - sent), 0),
              -1);
    EXPECT_EQ(errno, EAGAIN);
    char got[16];
    for (int i = 0; i < sent; i++) {
        EXPECT_EQ(recv(pair[1], got, sizeof got, 0), DATAGRAM_BYTES);
        EXPECT_EQ(memcmp(got, texts[i], DATAGRAM_BYTES), 0);
    }
    errno = 0;
    EXPECT_EQ(recv(pair[1], got, sizeof got, 0), -1);
    EXPECT_EQ(errno, EAGAIN);
    close(pair[0]);
    close(pair[1]);
}

/* Points each of `count` messages at its own buffer of `size` bytes. */
static void prepare_vector(struct mmsghdr *messages, struct iovec *parts,
                           char (*buffers)[8], int count, size_t size)
{
    memset(messages, 0, (size_t)count * sizeof *messages);
    for (int i = 0; i < count; i++) {
        parts[i] = (struct iovec){buffers[i], size};
        messages[i].msg_hdr.msg_iov = &parts[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
}

/* recvmmsg with MSG_WAITFORONE waits for the first message only and takes
 * what else is there: a vector of four gets the two datagrams waiting,
 * and on a stream "ab" and "cd", written apart, fill buffers of three as
 * "abc" and "d". */
TEST(ipc, recvmmsg_waitforone, .tags = "trace_messages")
{
    int datagrams[2], stream[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, datagrams), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, stream), 0);
    ASSERT_EQ(send(datagrams[0], "one", 3, 0), 3);
    ASSERT_EQ(send(datagrams[0], "two", 3, 0), 3);
    char got[4][8];
    struct iovec parts[4];
    struct mmsghdr messages[4];
    prepare_vector(messages, parts, got, 4, sizeof got[0]);
    EXPECT_EQ(recvmmsg(datagrams[1], messages, 4, MSG_WAITFORONE, NULL), 2);
    EXPECT_EQ(messages[0].msg_len, 3u);
    EXPECT_EQ(messages[1].msg_len, 3u);
    EXPECT_EQ(memcmp(got[0], "one", 3), 0);
    EXPECT_EQ(memcmp(got[1], "two", 3), 0);

    ASSERT_EQ(write(stream[0], "ab", 2), 2);
    ASSERT_EQ(write(stream[0], "cd", 2), 2);
    prepare_vector(messages, parts, got, 4, 3);
    EXPECT_EQ(recvmmsg(stream[1], messages, 4, MSG_WAITFORONE, NULL), 2);
    EXPECT_EQ(messages[0].msg_len, 3u);
    EXPECT_EQ(messages[1].msg_len, 1u);
    EXPECT_EQ(memcmp(got[0], "abc", 3), 0);
    EXPECT_EQ(memcmp(got[1], "d", 1), 0);
    close(datagrams[0]);
    close(datagrams[1]);
    close(stream[0]);
    close(stream[1]);
}

/* A regular file, written once so the capture has classified its number
 * as no endpoint; -1 when it could not be made. */
static int written_file(void)
{
    char path[] = "/tmp/tattle-capture-XXXXXX";
    int file = mkstemp(path);
    if (file < 0)
        return -1;
    unlink(path);
    if (write(file, "file", 4) != 4) {
        close(file);
        return -1;
    }
    return file;
}

/* One message through a pipe whose ends are the given numbers. */
static int pipe_message(const int fds[2], const char *text)
{
    size_t length = strlen(text);
    char back[64];
    if (write(fds[1], text, length) != (ssize_t)length ||
        read(fds[0], back, sizeof back) != (ssize_t)length)
        return -1;
    return 0;
}

/* Descriptor numbers closed where the interposed close does not see them
 * (close_range, closefrom in a forked child, fclose), then reused: a
 * file's numbers by a pipe, a pipe's number by a file. */
TEST(ipc, closed_unseen, .tags = "trace_messages")
{
    int first = written_file(), second = written_file();
    ASSERT_GE(first, 0);
    ASSERT_EQ(second, first + 1);
    ASSERT_EQ(close_range((unsigned)first, (unsigned)second, 0), 0);
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    ASSERT_EQ(fds[0], first);
    ASSERT_EQ(fds[1], second);
    ASSERT_EQ(pipe_message(fds, "after close_range"), 0);
    close(fds[0]);
    close(fds[1]);

    first = written_file();
    second = written_file();
    ASSERT_EQ(second, first + 1);
    pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        closefrom(first);
        if (pipe(fds) != 0 || fds[0] != first || fds[1] != second)
            _exit(2);
        _exit(pipe_message(fds, "after closefrom") == 0 ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(first);
    close(second);

    char path[] = "/tmp/tattle-capture-XXXXXX";
    int made = mkstemp(path);
    ASSERT_GE(made, 0);
    close(made);
    ASSERT_EQ(pipe(fds), 0);
    FILE *stream = fdopen(fds[1], "w");
    ASSERT_NOT_NULL(stream);
    ASSERT_EQ(pipe_message(fds, "before fclose"), 0);
    ASSERT_EQ(fclose(stream), 0);
    FILE *file = fopen(path, "w");
    unlink(path);
    ASSERT_NOT_NULL(file);
    ASSERT_EQ(fileno(file), fds[1]);
    ASSERT_EQ(write(fileno(file), "into the file", 13), 13);
    fclose(file);
    close(fds[0]);
}

/* Opens the file at `path` for writing until the number `wanted` comes
 * back (open hands out the lowest free number), writes into it and
 * returns 0; the numbers below it stay open. open is not interposed, so
 * only the cache's forgetting at the close keeps the writes out. */
static int write_file_at(const char *path, int wanted)
{
    for (;;) {
        int file = open(path, O_WRONLY | O_CLOEXEC);
        if (file < 0 || file > wanted)
            return -1;
        if (file == wanted)
            return write(file, "into the file", 13) == 13 ? 0 : -1;
    }
}

/* A pipe's numbers closed by close_range, and in a forked child by
 * closefrom(-1) (everything, as glibc reads a negative lowest), then
 * reused by files opened with open: the closes are events and the
 * files' writes are no messages. */
TEST(ipc, closed_in_range, .tags = "trace_messages")
{
    char path[] = "/tmp/tattle-capture-XXXXXX";
    int made = mkstemp(path);
    ASSERT_GE(made, 0);
    close(made);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(fds[1], fds[0] + 1);
    ASSERT_EQ(pipe_message(fds, "before close_range"), 0);
    ASSERT_EQ(close_range((unsigned)fds[0], (unsigned)fds[1], 0), 0);
    EXPECT_EQ(write_file_at(path, fds[0]), 0);
    EXPECT_EQ(write_file_at(path, fds[1]), 0);
    close(fds[0]);
    close(fds[1]);

    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        if (pipe_message(fds, "before closefrom") != 0)
            _exit(2);
        closefrom(-1);
        _exit(write_file_at(path, fds[0]) == 0 &&
                      write_file_at(path, fds[1]) == 0
                  ? 0
                  : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(fds[0]);
    close(fds[1]);
    unlink(path);
}

/* Closes both ends of a pipe. */
static void close_pipe(const int fds[2])
{
    close(fds[0]);
    close(fds[1]);
}

/* Waits for a child: true when it exited with status 0. */
static bool child_succeeded(pid_t child)
{
    int status = 0;
    return waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* A vfork child closes every descriptor from 3 up (closefrom, as
 * posix_spawn implementations and hand-written vfork+exec do) and exits.
 * It shares the test's memory but not its descriptors: the test's two
 * pipes stay open, one carries a message after it, and the closes of
 * both are the test's own. */
TEST(ipc, vfork_closefrom, .tags = "trace_messages")
{
    int used[2], idle[2];
    ASSERT_EQ(pipe(used), 0);
    ASSERT_EQ(pipe(idle), 0);
    ASSERT_EQ(pipe_message(used, "before vfork"), 0);
    ASSERT_EQ(pipe_message(idle, "idle before vfork"), 0);
    pid_t child = vfork();
    if (child == 0) {
        closefrom(3);
        _exit(0);
    }
    ASSERT_NE(child, -1);
    ASSERT(child_succeeded(child));
    ASSERT_EQ(pipe_message(used, "after vfork"), 0);
    close_pipe(used);
    close_pipe(idle);
}

/* A number closed by a raw close system call, then handed out again by
 * dup, fcntl(F_DUPFD_CLOEXEC), pipe and eventfd. */
TEST(ipc, created_after_unseen_close, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    int file = written_file();
    ASSERT_GE(file, 0);
    ASSERT_EQ(syscall(SYS_close, file), 0);
    int duplicate = dup(fds[1]);
    ASSERT_EQ(duplicate, file);
    ASSERT_EQ(pipe_message((int[2]){fds[0], duplicate}, "through dup"), 0);
    close(duplicate);

    file = written_file();
    ASSERT_GE(file, 0);
    ASSERT_EQ(syscall(SYS_close, file), 0);
    duplicate = fcntl(fds[1], F_DUPFD_CLOEXEC, file);
    ASSERT_EQ(duplicate, file);
    ASSERT_EQ(pipe_message((int[2]){fds[0], duplicate}, "through fcntl"), 0);
    close(duplicate);
    close(fds[0]);
    close(fds[1]);

    int first = written_file(), second = written_file();
    ASSERT_EQ(second, first + 1);
    ASSERT_EQ(syscall(SYS_close, first), 0);
    ASSERT_EQ(syscall(SYS_close, second), 0);
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(fds[0], first);
    ASSERT_EQ(pipe_message(fds, "through pipe"), 0);
    close(fds[0]);
    close(fds[1]);

    file = written_file();
    ASSERT_GE(file, 0);
    ASSERT_EQ(syscall(SYS_close, file), 0);
    int event = eventfd(0, EFD_CLOEXEC);
    ASSERT_EQ(event, file);
    ASSERT_EQ(eventfd_write(event, 7), 0);
    eventfd_t value = 0;
    ASSERT_EQ(eventfd_read(event, &value), 0);
    EXPECT_EQ(value, 7);
    close(event);
}

/* A pipe whose write end is then closed by a raw close system call, which
 * the capture does not see, after one message through it (its number is
 * cached as the pipe's): 0, or -1 when that failed. pipe hands out the two
 * lowest free numbers, so the write end's is the lowest free again. */
static int pipe_closed_unseen(int fds[2])
{
    if (pipe(fds) != 0 || pipe_message(fds, "through the pipe") != 0)
        return -1;
    return (int)syscall(SYS_close, fds[1]);
}

/* Writes `text` into `file`, which must be the number `wanted`, and closes
 * it and the pipe's read end: 0, or -1 when a step failed. */
static int write_file_then_close(int file, int wanted, int read_end,
                                 const char *text)
{
    size_t length = strlen(text);
    int result =
        file == wanted && write(file, text, length) == (ssize_t)length ? 0 : -1;
    if (file >= 0)
        close(file);
    close(read_end);
    return result;
}

/* The number of a pipe's end closed unseen, then handed out by each call
 * that opens a file or a descriptor that is no endpoint: what is written
 * into it is no message through the pipe. */
TEST(ipc, reused_by_open, .tags = "trace_messages")
{
    char path[] = "/tmp/tattle-capture-XXXXXX";
    int made = mkstemp(path);
    ASSERT_GE(made, 0);
    close(made);
    int fds[2];
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    EXPECT_EQ(write_file_then_close(open(path, O_WRONLY), fds[1], fds[0],
                                    "file by open"),
              0);
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    EXPECT_EQ(write_file_then_close(openat(AT_FDCWD, path, O_WRONLY), fds[1],
                                    fds[0], "file by openat"),
              0);
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    EXPECT_EQ(write_file_then_close(creat(path, 0600), fds[1], fds[0],
                                    "file by creat"),
              0);
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    FILE *stream = fopen(path, "w");
    ASSERT_NOT_NULL(stream);
    EXPECT_EQ(write(fileno(stream), "file by fopen", 13), 13);
    EXPECT_EQ(fileno(stream), fds[1]);
    fclose(stream);
    close(fds[0]);
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    char other[] = "/tmp/tattle-capture-XXXXXX";
    int temporary = mkstemp(other);
    if (temporary >= 0)
        unlink(other);
    EXPECT_EQ(
        write_file_then_close(temporary, fds[1], fds[0], "file by mkstemp"), 0);
    ASSERT_EQ(pipe_closed_unseen(fds), 0);
    EXPECT_EQ(write_file_then_close(memfd_create("tattle-capture", 0), fds[1],
                                    fds[0], "file by memfd_create"),
              0);
    unlink(path);
}

/* The number of a pipe's end closed unseen (or by freopen), then handed
 * out by freopen, tmpfile, mkostemp, timerfd_create, signalfd,
 * inotify_init and inotify_init1 (reused_numbers.h): what is written into
 * the file or read from the timer, the signal or the watch is no message
 * through the pipe. */
TEST(ipc, reused_by_every_call, .tags = "trace_messages")
{
    const char *which = "";
    const char *wrong = reused_by_every_call(&which);
    EXPECT(wrong == NULL, "%s: %s", which, wrong);
}

/* fcntl64 (what fcntl is named where glibc's off_t is 64 bits on every
 * target) duplicating a pipe's end with F_DUPFD and F_DUPFD_CLOEXEC onto
 * numbers a file had, closed unseen: the duplicates are the pipe's. */
TEST(ipc, fcntl64_dupfd, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    int file = written_file();
    ASSERT_GE(file, 0);
    ASSERT_EQ(syscall(SYS_close, file), 0);
    int duplicate = fcntl64(fds[1], F_DUPFD, file);
    ASSERT_EQ(duplicate, file);
    EXPECT_EQ(fcntl64(duplicate, F_GETFD), 0);
    ASSERT_EQ(pipe_message((int[2]){fds[0], duplicate}, "through F_DUPFD"), 0);
    close(duplicate);

    file = written_file();
    ASSERT_GE(file, 0);
    ASSERT_EQ(syscall(SYS_close, file), 0);
    duplicate = fcntl64(fds[1], F_DUPFD_CLOEXEC, file);
    ASSERT_EQ(duplicate, file);
    EXPECT_EQ(fcntl64(duplicate, F_GETFD), FD_CLOEXEC);
    ASSERT_EQ(pipe_message((int[2]){fds[0], duplicate}, "through cloexec"), 0);
    close(duplicate);
    close(fds[0]);
    close(fds[1]);
}

struct interrupted_reader {
    int read_end;
    _Atomic pid_t thread_id;
    _Atomic int first_returned;
    ssize_t first, second;
    int first_errno;
    char got[32];
};

static void *read_through_a_signal(void *argument)
{
    struct interrupted_reader *reader = argument;
    tattle_actor_name("reader");
    atomic_store(&reader->thread_id, gettid());
    reader->first = read(reader->read_end, reader->got, sizeof reader->got);
    reader->first_errno = errno;
    atomic_store(&reader->first_returned, 1);
    reader->second = read(reader->read_end, reader->got, sizeof reader->got);
    return NULL;
}

static void on_interrupt(int number)
{
    (void)number;
}

/* Whether the thread `thread_id` is inside read(fd, ...) now, from
 * /proc/self/task/TID/syscall ("NUMBER FIRST-ARGUMENT ..."). */
static bool blocked_in_read(pid_t thread_id, int fd)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)thread_id);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return false;
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    long number = -1;
    unsigned long first = 0;
    return sscanf(text, "%ld %lx", &number, &first) == 2 &&
           number == SYS_read && first == (unsigned long)fd;
}

/* Waits until `condition` holds for `argument` (checked every
 * millisecond), at most 10 s times TATTLE_TIMEOUT_MULTIPLIER. */
static bool wait_until(bool (*condition)(void *), void *argument)
{
    const char *multiplier = getenv("TATTLE_TIMEOUT_MULTIPLIER");
    double scale = multiplier ? atof(multiplier) : 1.0;
    long rounds = (long)(10000 * (scale >= 1.0 ? scale : 1.0));
    for (long i = 0; i < rounds; i++) {
        if (condition(argument))
            return true;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return condition(argument);
}

static bool reader_blocked(void *argument)
{
    struct interrupted_reader *reader = argument;
    pid_t thread_id = atomic_load(&reader->thread_id);
    return thread_id != 0 && blocked_in_read(thread_id, reader->read_end);
}

static bool first_read_returned(void *argument)
{
    struct interrupted_reader *reader = argument;
    return atomic_load(&reader->first_returned) != 0;
}

/* A thread blocked in read on an empty pipe is interrupted by a signal
 * whose handler is installed without SA_RESTART: its read fails with
 * EINTR; it reads again and gets the message written after. */
TEST(ipc, read_interrupted, .tags = "trace_messages")
{
    struct sigaction action = {.sa_handler = on_interrupt};
    ASSERT_EQ(sigaction(SIGUSR2, &action, NULL), 0);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    tattle_actor_name("writer");
    struct interrupted_reader reader = {.read_end = fds[0]};
    pthread_t thread;
    ASSERT_EQ(pthread_create(&thread, NULL, read_through_a_signal, &reader), 0);
    ASSERT(wait_until(reader_blocked, &reader));
    ASSERT_EQ(pthread_kill(thread, SIGUSR2), 0);
    ASSERT(wait_until(first_read_returned, &reader));
    ASSERT_EQ(write(fds[1], "after the signal", 16), 16);
    pthread_join(thread, NULL);
    EXPECT_EQ(reader.first, -1);
    EXPECT_EQ(reader.first_errno, EINTR);
    EXPECT_EQ(reader.second, 16);
    EXPECT_EQ(memcmp(reader.got, "after the signal", 16), 0);
    close(fds[0]);
    close(fds[1]);
}

enum { CROWD = TATTLE_TRACE_MAX_ACTORS + 2, CROWD_MESSAGE_BYTES = 8 };

struct crowd_member {
    int write_end;
    int number;
};

static void *write_one(void *argument)
{
    struct crowd_member *member = argument;
    char message[CROWD_MESSAGE_BYTES + 1];
    snprintf(message, sizeof message, "t%03d----", member->number);
    if (write(member->write_end, message, CROWD_MESSAGE_BYTES) !=
        CROWD_MESSAGE_BYTES)
        abort();
    return NULL;
}

/* CROWD threads, one after another, each write one message into
 * `write_end`: false when a thread could not be started. */
static bool crowd_writes_one_each(int write_end)
{
    for (int i = 0; i < CROWD; i++) {
        struct crowd_member member = {write_end, i};
        pthread_t thread;
        if (pthread_create(&thread, NULL, write_one, &member) != 0)
            return false;
        pthread_join(thread, NULL);
    }
    return true;
}

/* More threads than the trace has actor slots each write one message
 * into a pipe, one after another, so the last ones are refused; then the
 * main thread writes one and reads everything back. The cap keeps every
 * event (each thread's send and exit). */
TEST(ipc, more_writers_than_actors, .tags = "trace_messages:400")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT(crowd_writes_one_each(fds[1]));
    ASSERT_EQ(write(fds[1], "last one", CROWD_MESSAGE_BYTES),
              CROWD_MESSAGE_BYTES);
    static char everything[CROWD * CROWD_MESSAGE_BYTES];
    ASSERT_EQ(read(fds[0], everything, sizeof everything),
              (ssize_t)sizeof everything);
    EXPECT_EQ(memcmp(everything, "t000----", CROWD_MESSAGE_BYTES), 0);
    char last[CROWD_MESSAGE_BYTES];
    ASSERT_EQ(read(fds[0], last, sizeof last), CROWD_MESSAGE_BYTES);
    EXPECT_EQ(memcmp(last, "last one", CROWD_MESSAGE_BYTES), 0);
    close(fds[0]);
    close(fds[1]);
}

static void *take_one_token(void *argument)
{
    eventfd_t value = 0;
    return eventfd_read(*(int *)argument, &value) == 0 && value == 1 ? NULL
                                                                     : argument;
}

/* An EFD_SEMAPHORE eventfd written 1 twice: the test takes the first
 * token; then more threads than the trace has actor slots write into a
 * pipe, and one more takes the second token, its read refused for want
 * of a slot (lost, as to a ring): the test's read took one unit, the
 * first write, never the second. */
TEST(ipc, eventfd_semaphore_next_read_lost, .tags = "trace_messages:400")
{
    int event = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    ASSERT_GE(event, 0);
    ASSERT_EQ(eventfd_write(event, 1), 0);
    eventfd_t value = 0;
    ASSERT_EQ(eventfd_read(event, &value), 0);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(eventfd_write(event, 1), 0);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT(crowd_writes_one_each(fds[1]));
    pthread_t taker;
    void *failed = NULL;
    ASSERT_EQ(pthread_create(&taker, NULL, take_one_token, &event), 0);
    pthread_join(taker, &failed);
    EXPECT_NULL(failed);
    close(fds[0]);
    close(fds[1]);
    close(event);
}

/* A regular file and the test's own stdout and stderr are not message
 * endpoints; one pipe message shows the capture was on. */
TEST(ipc, not_endpoints, .tags = "trace_messages")
{
    char path[] = "/tmp/tattle-capture-XXXXXX";
    int file = mkstemp(path);
    ASSERT_GE(file, 0);
    unlink(path);
    ASSERT_EQ(write(file, "file content", 12), 12);
    ASSERT_EQ(lseek(file, 0, SEEK_SET), 0);
    char back[16];
    ASSERT_EQ(read(file, back, sizeof back), 12);
    close(file);
    ASSERT_EQ(write(STDOUT_FILENO, "to stdout\n", 10), 10);
    ASSERT_EQ(write(STDERR_FILENO, "to stderr\n", 10), 10);
    int duplicate = dup(STDOUT_FILENO);
    ASSERT_EQ(write(duplicate, "to stdout again\n", 16), 16);
    close(duplicate);
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    ASSERT_EQ(write(pipe_fds[1], "only this", 9), 9);
    ASSERT_EQ(read(pipe_fds[0], back, sizeof back), 9);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

static int signal_pipe = -1;

static void on_signal(int number)
{
    (void)number;
    int saved = errno;
    if (write(signal_pipe, "from handler", 12) != 12)
        abort();
    errno = saved;
}

/* Return values and errno as libc gives them: a partial write into a full
 * non-blocking pipe, EAGAIN, EBADF, writev/readv, a signal handler, the
 * fclose of a memory stream. */
TEST(ipc, semantics, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
    int capacity = fcntl(fds[1], F_SETPIPE_SZ, 4096);
    ASSERT_GE(capacity, 4096);
    static char big[1 << 17];
    memset(big, 'x', sizeof big);
    ssize_t wrote = write(fds[1], big, sizeof big);
    EXPECT_EQ(wrote, capacity);
    errno = 0;
    EXPECT_EQ(write(fds[1], big, 1), -1);
    EXPECT_EQ(errno, EAGAIN);
    static char sink[1 << 17];
    EXPECT_EQ(read(fds[0], sink, sizeof sink), capacity);
    errno = 0;
    EXPECT_EQ(read(fds[0], sink, sizeof sink), -1);
    EXPECT_EQ(errno, EAGAIN);
    errno = 0;
    EXPECT_EQ(write(-1, "x", 1), -1);
    EXPECT_EQ(errno, EBADF);
    errno = 0;
    EXPECT_EQ(read(-1, sink, 1), -1);
    EXPECT_EQ(errno, EBADF);

    struct iovec parts[2] = {{"vec", 3}, {"tor", 3}};
    EXPECT_EQ(writev(fds[1], parts, 2), 6);
    char first[2], rest[8];
    struct iovec into[2] = {{first, sizeof first}, {rest, sizeof rest}};
    EXPECT_EQ(readv(fds[0], into, 2), 6);
    EXPECT_EQ(memcmp(first, "ve", 2), 0);
    EXPECT_EQ(memcmp(rest, "ctor", 4), 0);

    signal_pipe = fds[1];
    struct sigaction action = {.sa_handler = on_signal};
    ASSERT_EQ(sigaction(SIGUSR1, &action, NULL), 0);
    ASSERT_EQ(raise(SIGUSR1), 0);
    char text[16];
    EXPECT_EQ(read(fds[0], text, sizeof text), 12);
    close(fds[0]);
    close(fds[1]);

    /* A memory stream has no descriptor: closing it leaves errno alone.
     * Not under ThreadSanitizer, whose own fclose asks for the stream's
     * descriptor before the call reaches tattle's and leaves its EBADF. */
    char memory[8];
    FILE *stream = fmemopen(memory, sizeof memory, "w");
    ASSERT_NOT_NULL(stream);
    errno = ERANGE;
    EXPECT_EQ(fclose(stream), 0);
#ifndef __SANITIZE_THREAD__
    EXPECT_EQ(errno, ERANGE);
#endif
}

/* trace_messages:noipc: only the tracer call is recorded. */
TEST(ipc, noipc, .tags = "trace_messages:noipc")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "uncaptured", 10), 10);
    char text[16];
    ASSERT_EQ(read(fds[0], text, sizeof text), 10);
    tattle_trace_send("nobody", "note", "by hand", 7);
    close(fds[0]);
    close(fds[1]);
}

/* Sends through a pipe, then overwrites the capture's endpoint table in
 * its own arena with what no honest writer leaves there. */
TEST(ipc, hostile_endpoints, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "before", 6), 6);
    char text[16];
    ASSERT_EQ(read(fds[0], text, sizeof text), 6);
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    memset(arena->endpoints, 0xff, sizeof arena->endpoints);
    ASSERT_EQ(write(fds[1], "after", 5), 5);
    ASSERT_EQ(read(fds[0], text, sizeof text), 5);
}

/* A queue the test opens, or SKIP when the machine has none. */
#define OPEN_TEST_QUEUE(queue, prefix, most)                                   \
    do {                                                                       \
        char queue_name[64];                                                   \
        snprintf(queue_name, sizeof queue_name, "/tattle-%s-%d", prefix,       \
                 (int)getpid());                                               \
        struct mq_attr queue_attributes = {.mq_maxmsg = most,                  \
                                           .mq_msgsize = 16};                  \
        mq_unlink(queue_name);                                                 \
        queue = mq_open(queue_name, O_CREAT | O_EXCL | O_RDWR, 0600,           \
                        &queue_attributes);                                    \
        if (queue == (mqd_t)-1 && (errno == ENOSYS || errno == EACCES))        \
            SKIP("no POSIX message queues here: %s", strerror(errno));         \
        ASSERT_NE(queue, (mqd_t)-1);                                           \
        ASSERT_EQ(mq_unlink(queue_name), 0);                                   \
    } while (0)

enum { FORGED_ROUNDS = 200000 };

/* A queue whose send counter the test pushes, in its own arena, far past
 * every offset its receives will have (as a hostile test may): each of
 * the many receives is below every send, and the freeze must still match
 * them in a time linear in their number. The first message is put on the
 * queue unseen (a raw system call) so that its receive claims the
 * queue's entry before any send is recorded. */
TEST(ipc, mq_forged_offsets, .tags = "trace_messages",
     .trace_cap = 2 * FORGED_ROUNDS + 16,
     .trace_budget = 2 * FORGED_ROUNDS + 16)
{
    mqd_t queue;
    OPEN_TEST_QUEUE(queue, "forged", 2);
    ASSERT_EQ(
        syscall(SYS_mq_timedsend, queue, "unseen", (size_t)6, 0u, (void *)NULL),
        0);
    char got[16];
    ASSERT_EQ(mq_receive(queue, got, sizeof got, NULL), 6);
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    struct tattle__endpoint *entry = NULL;
    for (int i = 0; i < TATTLE__MAX_ENDPOINTS && entry == NULL; i++)
        if (atomic_load(&arena->endpoints[i].kind) == TATTLE__ENDPOINT_QUEUE)
            entry = &arena->endpoints[i];
    ASSERT_NOT_NULL(entry);
    atomic_fetch_add(&entry->sent, UINT64_C(1) << 40);
    for (int round = 0; round < FORGED_ROUNDS; round++) {
        ASSERT_EQ(mq_send(queue, "same", 4, 0), 0);
        ASSERT_EQ(mq_receive(queue, got, sizeof got, NULL), 4);
    }
    EXPECT_EQ(mq_close(queue), 0);
}

/* A child made by _Fork, which runs no fork handler: it is no vfork child
 * (its memory is its own), so it closes the test's pipe, makes another
 * that is handed the same numbers, and sends through it as the process
 * it is. The test then sends through a pipe of its own. SKIPs where kcmp
 * is refused: there a process cannot tell a vfork child from this one. */
TEST(ipc, fork_without_handlers, .tags = "trace_messages")
{
    if (syscall(SYS_kcmp, getpid(), getpid(), KCMP_VM, 0UL, 0UL) != 0)
        SKIP("kcmp refused (%s): the capture cannot tell a child made "
             "without fork handlers from a vfork child",
             strerror(errno));
    int old[2], mine[2];
    ASSERT_EQ(pipe(old), 0);
    ASSERT_EQ(pipe(mine), 0);
    ASSERT_EQ(pipe_message(old, "before the fork"), 0);
    pid_t child = _Fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
        close(old[0]);
        close(old[1]);
        int fds[2];
        if (pipe(fds) != 0 || fds[0] != old[0] || fds[1] != old[1])
            _exit(2);
        _exit(pipe_message(fds, "in the child") == 0 ? 0 : 3);
    }
    ASSERT(child_succeeded(child));
    ASSERT_EQ(pipe_message(mine, "after the fork"), 0);
    ASSERT_EQ(pipe_message(old, "old after the fork"), 0);
    close_pipe(old);
    close_pipe(mine);
}

/* A vfork child puts a pipe on its standard error and writes there, as
 * vfork+dup2+exec does: the test's own standard error (the runner's
 * capture) stays no endpoint, so the test's write to it is no message. */
TEST(ipc, vfork_child_redirects_stderr, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    static const char note[] = "from the child";
    pid_t child = vfork();
    if (child == 0) {
        if (dup2(fds[1], 2) != 2)
            _exit(2);
        _exit(write(2, note, sizeof note - 1) == (ssize_t)(sizeof note - 1)
                  ? 0
                  : 3);
    }
    ASSERT_NE(child, -1);
    ASSERT(child_succeeded(child));
    static const char line[] = "the test's own stderr\n";
    ASSERT_EQ(write(2, line, sizeof line - 1), (ssize_t)(sizeof line - 1));
    char got[32];
    ASSERT_EQ(read(fds[0], got, sizeof got), (ssize_t)(sizeof note - 1));
    close(fds[0]);
    close(fds[1]);
}

/* The close of a number the capture never looked up, and of one it knows
 * is no endpoint (a file written once), asks nothing of the kernel but
 * the close. */
TEST(ipc, close_of_no_endpoint_is_plain, .tags = "trace_messages")
{
    char path[] = "/tmp/tattle-capture-XXXXXX";
    int unknown = mkstemp(path); /* mkstemp is not interposed */
    ASSERT_GE(unknown, 0);
    unlink(path);
    unsigned long before = atomic_load(&getpid_calls);
    ASSERT_EQ(close(unknown), 0);
    EXPECT_EQ(atomic_load(&getpid_calls), before);
    int file = written_file();
    ASSERT_GE(file, 0);
    before = atomic_load(&getpid_calls);
    ASSERT_EQ(close(file), 0);
    EXPECT_EQ(atomic_load(&getpid_calls), before);
}

/* A message put on a queue unseen (a raw system call) and received, then
 * a message of the same bytes sent by mq_send and received: the first
 * receive came before any recorded send, so it matches none; the second
 * matches the send. */
TEST(ipc, mq_receive_before_its_lookalike, .tags = "trace_messages")
{
    mqd_t queue;
    OPEN_TEST_QUEUE(queue, "lookalike", 2);
    ASSERT_EQ(
        syscall(SYS_mq_timedsend, queue, "same", (size_t)4, 0u, (void *)NULL),
        0);
    char got[16];
    EXPECT_EQ(mq_receive(queue, got, sizeof got, NULL), 4);
    ASSERT_EQ(mq_send(queue, "same", 4, 0), 0);
    EXPECT_EQ(mq_receive(queue, got, sizeof got, NULL), 4);
    EXPECT_EQ(mq_close(queue), 0);
}

/* ---- Bytes still unread when the test ends ------------------------------
 * Each test leaves something in an endpoint; the driver checks the trace's
 * `endpoints` list. */

/* A pipe read in part: five bytes of the first write and all of the
 * second are left in it. */
TEST(ipc, pending_pipe, .tags = "trace_messages")
{
    tattle_actor_name("producer");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "abcdefgh", 8), 8);
    char got[3];
    ASSERT_EQ(read(fds[0], got, sizeof got), 3);
    ASSERT_EQ(write(fds[1], "tail", 4), 4);
}

/* Three datagrams through a socketpair, one of them read. */
TEST(ipc, pending_datagrams, .tags = "trace_messages")
{
    tattle_actor_name("talker");
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, pair), 0);
    ASSERT_EQ(send(pair[0], "one", 3, 0), 3);
    ASSERT_EQ(send(pair[0], "two", 3, 0), 3);
    ASSERT_EQ(send(pair[0], "three", 5, 0), 5);
    char got[8];
    ASSERT_EQ(recv(pair[1], got, sizeof got, 0), 3);
}

/* An eventfd written and never read. */
TEST(ipc, pending_eventfd, .tags = "trace_messages")
{
    tattle_actor_name("waker");
    int event = eventfd(0, EFD_CLOEXEC);
    ASSERT_GE(event, 0);
    uint64_t five = 5;
    ASSERT_EQ(write(event, &five, sizeof five), (ssize_t)sizeof five);
}

/* A POSIX queue with two of its three messages left. */
TEST(ipc, pending_queue, .tags = "trace_messages")
{
    tattle_actor_name("poster");
    mqd_t queue;
    OPEN_TEST_QUEUE(queue, "pending", 4);
    ASSERT_EQ(mq_send(queue, "first", 5, 0), 0);
    ASSERT_EQ(mq_send(queue, "second", 6, 0), 0);
    ASSERT_EQ(mq_send(queue, "third", 5, 0), 0);
    char got[16];
    ASSERT_EQ(mq_receive(queue, got, sizeof got, NULL), 5);
}

/* A job written into a pipe, then a crash before any worker read it. */
TEST(ipc, pending_crash, .tags = "trace_messages")
{
    tattle_actor_name("boss");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "lost job", 8), 8);
    raise(SIGSEGV);
}

/* The same, killed outright: no handler of the test's runs. */
TEST(ipc, pending_killed, .tags = "trace_messages")
{
    tattle_actor_name("boss");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "killed job", 10), 10);
    kill(getpid(), SIGKILL);
}

/* Bytes left in two pipes, then the endpoint table's counters forged:
 * readers past the writers on the first, writers at the end of numbers
 * on the second. */
/* Every socket entry is forged to name the one socket with unread
 * datagrams as its peer: believed, each would list those datagrams again. */
TEST(ipc, pending_forged_peer, .tags = "trace_messages")
{
    int unread_pair[2], read_pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, unread_pair), 0);
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, read_pair), 0);
    for (int i = 0; i < 3; i++)
        ASSERT_EQ(send(unread_pair[0], "shared", 6, 0), 6);
    char buffer[8];
    ASSERT_EQ(send(read_pair[0], "drained", 7, 0), 7);
    ASSERT_EQ(recv(read_pair[1], buffer, sizeof buffer, 0), 7);
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    uint32_t writer = 0;
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++)
        if (atomic_load(&arena->endpoints[i].sent) == 3)
            writer = i + 1;
    ASSERT_NE(writer, 0u);
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++)
        if (i + 1 != writer && atomic_load(&arena->endpoints[i].kind) != 0)
            atomic_store(&arena->endpoints[i].peer, writer);
}

TEST(ipc, pending_hostile, .tags = "trace_messages")
{
    int first[2], second[2];
    ASSERT_EQ(pipe(first), 0);
    ASSERT_EQ(pipe(second), 0);
    ASSERT_EQ(write(first[1], "forged", 6), 6);
    ASSERT_EQ(write(second[1], "endless", 7), 7);
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    for (int i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct tattle__endpoint *entry = &arena->endpoints[i];
        if (atomic_load(&entry->sent) == 6)
            atomic_store(&entry->received, 1000);
        else if (atomic_load(&entry->sent) == 7)
            atomic_store(&entry->sent, UINT64_MAX);
    }
}

/* Ten one-byte writes into a pipe, then one read of all ten, with room
 * in the ring for four events: the read's first bytes came from writes
 * the ring lost, the writes it kept are still the read's. */
TEST(ipc, many_writes_one_read_small_ring, .tags = "trace_messages:4")
{
    int ends[2];
    ASSERT_EQ(pipe(ends), 0);
    for (int i = 0; i < 10; i++)
        ASSERT_EQ(write(ends[1], &"abcdefghij"[i], 1), 1);
    char got[16];
    ASSERT_EQ(read(ends[0], got, sizeof got), 10);
    close(ends[0]);
    close(ends[1]);
}

/* An eventfd that is no semaphore, written twice and read once: the
 * read takes both writes. */
TEST(ipc, eventfd_two_writes_one_read, .tags = "trace_messages")
{
    int event = eventfd(0, EFD_CLOEXEC);
    ASSERT_GE(event, 0);
    ASSERT_EQ(eventfd_write(event, 1), 0);
    ASSERT_EQ(eventfd_write(event, 2), 0);
    eventfd_t value = 0;
    ASSERT_EQ(eventfd_read(event, &value), 0);
    EXPECT_EQ(value, 3);
    close(event);
}

/* ---- What the kernel still held (the live peek) ---- */

/* A FIFO the driver made and holds open (TATTLE_TEST_FIFO), so the bytes
 * left in it outlive the test process: the driver reads them after the
 * run, which shows the peek at the test's end took none of them. */
TEST(ipc, kernel_fifo_held, .tags = "trace_messages")
{
    tattle_actor_name("producer");
    const char *path = getenv("TATTLE_TEST_FIFO");
    if (path == NULL)
        SKIP("TATTLE_TEST_FIFO names no FIFO");
    int fifo = open(path, O_RDWR | O_CLOEXEC);
    ASSERT_GE(fifo, 0);
    ASSERT_EQ(write(fifo, "abcdefgh", 8), 8);
    char got[3];
    ASSERT_EQ(read(fifo, got, sizeof got), 3);
    ASSERT_EQ(write(fifo, "tail", 4), 4);
}

/* A stream socketpair with bytes left unread in both directions, both
 * sockets held at the end. */
TEST(ipc, kernel_socketpair_held, .tags = "trace_messages")
{
    tattle_actor_name("talker");
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    ASSERT_EQ(send(pair[0], "hello world", 11, 0), 11);
    char got[6];
    ASSERT_EQ(recv(pair[1], got, sizeof got, 0), 6);
    ASSERT_EQ(send(pair[1], "back", 4, 0), 4);
}

/* A pipe with a job in it while the test hangs past its timeout: the
 * runner peeks it on the halted process, before the kill. */
TEST(ipc, kernel_pipe_at_timeout, .tags = "trace_messages", .timeout_ms = 300)
{
    tattle_actor_name("boss");
    int jobs[2], never[2];
    ASSERT_EQ(pipe(jobs), 0);
    ASSERT_EQ(pipe(never), 0);
    ASSERT_EQ(write(jobs[1], "stuck job", 9), 9);
    char byte;
    ASSERT_EQ(read(never[0], &byte, 1), 1); /* nobody writes: hangs */
}

/* Forks a child that holds every descriptor the test had open and waits
 * until it is killed: it never ends on its own. */
static void fork_holder(void)
{
    pid_t holder = fork();
    ASSERT_GE(holder, 0);
    if (holder == 0)
        for (;;)
            pause();
}

/* A pipe with a job in it that only a forked child still holds: the test
 * process closes its ends and returns while the child waits, and the
 * runner peeks the child's copy, halted, before it kills it. */
TEST(ipc, kernel_pipe_held_by_child, .tags = "trace_messages")
{
    tattle_actor_name("boss");
    int jobs[2];
    ASSERT_EQ(pipe(jobs), 0);
    ASSERT_EQ(write(jobs[1], "child job", 9), 9);
    fork_holder();
    close(jobs[0]);
    close(jobs[1]);
}

/* The same pipe, the test process hanging past its timeout once it
 * closed its ends: the runner peeks the child's copy before the kill. */
TEST(ipc, kernel_pipe_held_by_child_at_timeout, .tags = "trace_messages",
     .timeout_ms = 300)
{
    tattle_actor_name("boss");
    int jobs[2], never[2];
    ASSERT_EQ(pipe(jobs), 0);
    ASSERT_EQ(pipe(never), 0);
    ASSERT_EQ(write(jobs[1], "child job", 9), 9);
    fork_holder();
    close(jobs[0]);
    close(jobs[1]);
    char byte;
    ASSERT_EQ(read(never[0], &byte, 1), 1); /* nobody writes: hangs */
}

/* Two messages waiting in a POSIX queue (unlinked, so nothing outlives
 * the kill) while the test hangs past its timeout: the runner counts them
 * on the halted process, before the kill. */
TEST(ipc, kernel_queue_at_timeout, .tags = "trace_messages", .timeout_ms = 300)
{
    tattle_actor_name("boss");
    char name[64];
    mqd_t queue =
        open_new_queue(name, sizeof name, "/tattle-kernel-timeout", 4, 16);
    ASSERT_EQ(mq_unlink(name), 0);
    ASSERT_EQ(mq_send(queue, "first", 5, 0), 0);
    ASSERT_EQ(mq_send(queue, "second", 6, 0), 0);
    int never[2];
    ASSERT_EQ(pipe(never), 0);
    char byte;
    ASSERT_EQ(read(never[0], &byte, 1), 1); /* nobody writes: hangs */
}

/* Bytes written into a pipe whose both ends are then closed: no process
 * holds it open any more, so it is no endpoint of the snapshot. */
TEST(ipc, kernel_pipe_closed, .tags = "trace_messages")
{
    tattle_actor_name("closer");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "gone", 4), 4);
    close(fds[0]);
    close(fds[1]);
}

/* A request left unread in a socketpair when the test crashes: its crash
 * handler peeks it. */
TEST(ipc, kernel_socket_crash, .tags = "trace_messages")
{
    tattle_actor_name("server");
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    ASSERT_EQ(send(pair[0], "pending request", 15, 0), 15);
    raise(SIGSEGV);
}

/* A captured pipe whose captured bytes were all read, then bytes moved
 * into it where the capture does not look (vmsplice): the kernel holds
 * what no kept send accounts for, so its row is not complete. */
TEST(ipc, kernel_bytes_uncounted, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "seen", 4), 4);
    char text[4];
    ASSERT_EQ(read(fds[0], text, sizeof text), 4);
    static char unseen[] = "unseen";
    struct iovec piece = {.iov_base = unseen, .iov_len = 6};
    ASSERT_EQ(vmsplice(fds[1], &piece, 1, 0), 6);
}

/* Bytes left in a pipe closed again, then its entry's key forged to be
 * that of a regular file the test holds open with bytes past its offset,
 * its kind still a pipe's. The peek must find the descriptor no FIFO and
 * leave it alone (FIONREAD on the file would give the bytes left in it). */
TEST(ipc, kernel_peek_forged_kind, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "forged", 6), 6);
    close(fds[0]);
    close(fds[1]);
    FILE *file = tmpfile();
    ASSERT_NOT_NULL(file);
    ASSERT_EQ(fwrite("not a pipe", 1, 10, file), 10u);
    ASSERT_EQ(fflush(file), 0);
    rewind(file);
    struct stat status;
    ASSERT_EQ(fstat(fileno(file), &status), 0);
    /* tattle__endpoint_key, which the test process's capture uses. */
    uint64_t key = ((uint64_t)status.st_dev * UINT64_C(0x9E3779B97F4A7C15)) ^
                   (uint64_t)status.st_ino;
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct tattle__endpoint *entry = &arena->endpoints[i];
        if (atomic_load(&entry->kind) == TATTLE__ENDPOINT_PIPE)
            atomic_store(&entry->key, key != 0 ? key : 1);
    }
}

/* Bytes left in a pipe closed again, then its entry's peek forged: a
 * length far past the peek buffer, as if a holder had peeked it. The
 * freeze must refuse it, never read past the entry. */
TEST(ipc, kernel_peek_forged_length, .tags = "trace_messages")
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(write(fds[1], "forged", 6), 6);
    close(fds[0]);
    close(fds[1]);
    struct tattle_trace_arena *arena = tattle_trace_current;
    ASSERT_NOT_NULL(arena);
    for (uint32_t i = 0; i < TATTLE__MAX_ENDPOINTS; i++) {
        struct tattle__endpoint *entry = &arena->endpoints[i];
        if (atomic_load(&entry->kind) == 0)
            continue;
        entry->peek_length = UINT32_MAX - 7;
        entry->kernel_bytes = UINT64_MAX;
        atomic_store(&entry->peeked, TATTLE__PEEK_TEST);
    }
}
