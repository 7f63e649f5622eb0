/*
 * last_run.c — reading and merging `.tattle/last-run.json` through cJSON:
 * {"version": 1, "executables": {"/path/to/binary": {"failed": [ids]}}}.
 *
 * Several runs may end at once in one directory (CTest starts one process
 * per test), so a merge holds an exclusive flock on `.tattle/last-run.lock`
 * from its read to its rename, and a read for --failed holds a shared one:
 * no run's outcomes are lost to another's write, and a reader never sees
 * a state between two merges. The lock goes with the descriptor, on every
 * path out (and when the process dies).
 */
#include "runner/last_run.h"

#include "base/report_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char state_directory[] = ".tattle";
static const char state_path[] = ".tattle/last-run.json";
static const char lock_path[] = ".tattle/last-run.lock";

/* Opens the lock file and takes the lock (LOCK_SH or LOCK_EX). Returns the
 * descriptor to close, or a negative errno. Without `create`, a missing
 * lock file (a state written before locks, or none) is -ENOENT. */
static int lock_state(int operation, bool create)
{
    int fd = open(lock_path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC,
                  0666);
    if (fd < 0)
        return -errno;
    while (flock(fd, operation) != 0) {
        if (errno != EINTR) {
            int error = -errno;
            close(fd);
            return error;
        }
    }
    return fd;
}

/* Parses the state file; NULL when there is none. A file that is not a
 * tattle state is an error (the caller decides whether that matters). */
static int read_state(cJSON **root, struct tattle__buffer *error)
{
    *root = NULL;
    FILE *file = fopen(state_path, "rb");
    if (!file)
        return 0;
    struct tattle__buffer text = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0)
        tattle__buffer_append(&text, chunk, n);
    fclose(file);
    cJSON *parsed =
        cJSON_ParseWithLength(text.data ? text.data : "", text.length);
    tattle__buffer_release(&text);
    cJSON *version = cJSON_GetObjectItemCaseSensitive(parsed, "version");
    cJSON *executables =
        cJSON_GetObjectItemCaseSensitive(parsed, "executables");
    if (!cJSON_IsNumber(version) || version->valuedouble != 1 ||
        !cJSON_IsObject(executables)) {
        cJSON_Delete(parsed);
        if (error)
            tattle__buffer_printf(
                error,
                "%s: not a tattle last-run state (delete it to start over)",
                state_path);
        return -EINVAL;
    }
    *root = parsed;
    return 0;
}

int tattle__last_run_load(const char *executable,
                          struct tattle__string_list *failed_ids,
                          struct tattle__buffer *error)
{
    /* Shared: no merge is half done while the state is read. Without a
     * lock file there is no merge to wait for. */
    int lock = lock_state(LOCK_SH, false);
    cJSON *root;
    int rc = read_state(&root, error);
    if (lock >= 0)
        close(lock);
    if (rc != 0 || !root)
        return rc;
    cJSON *entry = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "executables"), executable);
    cJSON *failed = cJSON_GetObjectItemCaseSensitive(entry, "failed");
    cJSON *id;
    cJSON_ArrayForEach(id, failed)
    {
        if (cJSON_IsString(id))
            tattle__string_list_add(failed_ids, id->valuestring);
    }
    cJSON_Delete(root);
    return (int)failed_ids->count;
}

static cJSON *find_string(cJSON *array, const char *text)
{
    cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (cJSON_IsString(item) && strcmp(item->valuestring, text) == 0)
            return item;
    }
    return NULL;
}

/* Reads the state, merges the outcomes in and writes it back atomically
 * (base/report_file.h). The caller holds the exclusive lock. */
static int merge_and_write(const char *executable,
                           const struct tattle__last_run_outcome *outcomes,
                           size_t outcome_count)
{
    cJSON *root;
    if (read_state(&root, NULL) != 0 || !root) {
        /* Missing or not ours: start over rather than fail the run. */
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "version", 1);
        cJSON_AddObjectToObject(root, "executables");
    }
    cJSON *executables = cJSON_GetObjectItemCaseSensitive(root, "executables");
    cJSON *entry = cJSON_GetObjectItemCaseSensitive(executables, executable);
    if (!cJSON_IsObject(entry)) {
        cJSON_DeleteItemFromObjectCaseSensitive(executables, executable);
        entry = cJSON_AddObjectToObject(executables, executable);
    }
    cJSON *failed = cJSON_GetObjectItemCaseSensitive(entry, "failed");
    if (!cJSON_IsArray(failed)) {
        cJSON_DeleteItemFromObjectCaseSensitive(entry, "failed");
        failed = cJSON_AddArrayToObject(entry, "failed");
    }
    for (size_t i = 0; i < outcome_count; i++) {
        cJSON *present = find_string(failed, outcomes[i].id);
        if (outcomes[i].failed && !present)
            cJSON_AddItemToArray(failed, cJSON_CreateString(outcomes[i].id));
        else if (!outcomes[i].failed && present)
            cJSON_Delete(cJSON_DetachItemViaPointer(failed, present));
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -ENOMEM;
    struct tattle__atomic_file file;
    int rc = tattle__atomic_open(&file, state_path);
    if (rc == 0) {
        rc = tattle__write_all(file.fd, text, strlen(text));
        if (rc == 0)
            rc = tattle__write_all(file.fd, "\n", 1);
        if (rc == 0)
            rc = tattle__atomic_commit(&file);
        else
            tattle__atomic_discard(&file);
    }
    cJSON_free(text);
    return rc;
}

int tattle__last_run_save(const char *executable,
                          const struct tattle__last_run_outcome *outcomes,
                          size_t outcome_count)
{
    if (mkdir(state_directory, 0755) != 0 && errno != EEXIST)
        return -errno;
    int lock = lock_state(LOCK_EX, true);
    if (lock < 0)
        return lock;
    int rc = merge_and_write(executable, outcomes, outcome_count);
    close(lock);
    return rc;
}
