/*
 * last_run.c — saving and loading `.tattle/last-run.json` through cJSON.
 */
#include "runner/last_run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char state_directory[] = ".tattle";
static const char state_path[] = ".tattle/last-run.json";

int tattle__last_run_load(struct tattle__string_list *failed_ids,
                          struct tattle__buffer *error)
{
    FILE *file = fopen(state_path, "rb");
    if (!file)
        return 0;
    struct tattle__buffer text = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0)
        tattle__buffer_append(&text, chunk, n);
    fclose(file);
    cJSON *root = cJSON_ParseWithLength(text.data ? text.data : "", text.length);
    cJSON *failed = cJSON_GetObjectItemCaseSensitive(root, "failed");
    int rc = 0;
    if (!cJSON_IsArray(failed)) {
        tattle__buffer_printf(error, "%s: not a tattle last-run state (delete it to start over)",
                              state_path);
        rc = -EINVAL;
    } else {
        cJSON *id;
        cJSON_ArrayForEach(id, failed) {
            if (cJSON_IsString(id))
                tattle__string_list_add(failed_ids, id->valuestring);
        }
        rc = (int)failed_ids->count;
    }
    cJSON_Delete(root);
    tattle__buffer_release(&text);
    return rc;
}

int tattle__last_run_save(const struct tattle__string_list *failed_ids)
{
    if (mkdir(state_directory, 0755) != 0 && errno != EEXIST)
        return -errno;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON *failed = cJSON_AddArrayToObject(root, "failed");
    for (size_t i = 0; i < failed_ids->count; i++)
        cJSON_AddItemToArray(failed, cJSON_CreateString(failed_ids->items[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return -ENOMEM;
    char temporary[64];
    snprintf(temporary, sizeof temporary, "%s.%d.tmp", state_path, (int)getpid());
    FILE *file = fopen(temporary, "wb");
    int rc = 0;
    if (!file) {
        rc = -errno;
    } else {
        fputs(text, file);
        fputc('\n', file);
        if (fclose(file) != 0)
            rc = -errno;
        else if (rename(temporary, state_path) != 0)
            rc = -errno;
        if (rc != 0)
            unlink(temporary);
    }
    cJSON_free(text);
    return rc;
}
