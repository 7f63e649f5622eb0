/*
 * merge.c — `tattle merge -o OUT IN...`: one report from many runs.
 *
 * The inputs are reports, streams and directories of streams (the shards
 * of one run, the one-test runs CTest starts, a stream cut short by a
 * killed runner). Memory does not grow with the number of tests: every
 * input is read twice, and neither pass holds more than one test. The
 * first pass is cheap: a stream's line is read only as far as its id.
 *
 *   1. Ids: each test's id is scanned (not parsed) and its 64-bit hash
 *      goes into a Bloom filter of fixed size; an id the filter may have
 *      seen already is a candidate duplicate. Only candidates are kept.
 *   2. When there are candidates, their ids are read again exactly, with
 *      the inputs that hold them: an id in two inputs is an error, or with
 *      --keep-last is kept from the last input that has it.
 *   3. The tests are read in full and written, input after input, through
 *      the json reporter (or --to FORMAT), with the summary counted as
 *      they pass and the run described from the inputs' runs.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/hash.h"
#include "cli/cli.h"
#include "results/model.h"
#include "results/read.h"

static const char help[] =
    "usage: tattle merge -o OUT.json [--keep-last] [--to FORMAT] IN...\n"
    "\n"
    "Joins reports, streams and directories of streams into one report: the\n"
    "shards of one run, the one-test runs of CTest (--report-dir), a stream "
    "cut\n"
    "short by a killed runner (its finished tests are kept, the tests it was\n"
    "running are reported failed). A directory contributes its *.jsonl and\n"
    "*.json files, by name. Tests keep the order of the inputs; the summary "
    "is\n"
    "counted again. OUT is replaced atomically, and only when every input was\n"
    "read whole.\n"
    "\n"
    "  -o, --output FILE  the merged report ('-': stdout)\n"
    "  --keep-last        a test in several inputs is kept from the last one\n"
    "                     (without it, that is an error)\n"
    "  --group-by-error   add error groups (kept anyway when an input had "
    "them)\n"
    "  --to FORMAT        write another format than json (any reporter)\n"
    "\n"
    "exit status: 0 written, 2 usage error or bad input (nothing written).\n";

/* ---- Inputs ------------------------------------------------------------ */

struct input {
    char *path;
    /* What its run says, kept for the merged run. */
    char *started_at;
    int64_t started_us; /* -1 when started_at is not RFC 3339 */
    uint64_t duration_us;
    uint64_t seed;
    unsigned jobs;
    char *executable;
    uint64_t argv_hash;
    bool sharded;
    unsigned shard_index, shard_total;
    bool interrupted;
    uint64_t planned;
    bool planned_open;
    bool has_error_groups;
    /* A report written without its tests: its counts and error groups
     * (a copy) are all there is of them. */
    bool summary_only;
    struct tattle_summary counts;
    cJSON *error_groups;
};

struct inputs {
    struct input *items;
    size_t count;
};

static void add_input(struct inputs *inputs, const char *path)
{
    inputs->items = tattle__realloc(inputs->items, (inputs->count + 1) *
                                                       sizeof *inputs->items);
    inputs->items[inputs->count++] =
        (struct input){.path = tattle__strdup(path)};
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted_in_directory(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 6 && strcmp(name + n - 6, ".jsonl") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

/* A directory's stream and report files, sorted by name. */
static int add_directory(struct inputs *inputs, const char *path)
{
    DIR *directory = opendir(path);
    if (!directory)
        return tattle__cli_fail("merge", "%s: cannot open: %s", path,
                                strerror(errno));
    char **names = NULL;
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        if (!wanted_in_directory(entry->d_name))
            continue;
        struct tattle__buffer full = {0};
        tattle__buffer_printf(&full, "%s/%s", path, entry->d_name);
        struct stat info;
        if (stat(full.data, &info) == 0 && S_ISREG(info.st_mode)) {
            names = tattle__realloc(names, (count + 1) * sizeof *names);
            names[count++] = tattle__buffer_take(&full);
        }
        tattle__buffer_release(&full);
    }
    closedir(directory);
    if (count == 0) {
        free(names);
        return tattle__cli_fail(
            "merge", "%s: no .jsonl or .json file in this directory", path);
    }
    qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        add_input(inputs, names[i]);
        free(names[i]);
    }
    free(names);
    return TATTLE__EXIT_OK;
}

static void release_inputs(struct inputs *inputs)
{
    for (size_t i = 0; i < inputs->count; i++) {
        free(inputs->items[i].path);
        free(inputs->items[i].started_at);
        free(inputs->items[i].executable);
        cJSON_Delete(inputs->items[i].error_groups);
    }
    free(inputs->items);
}

/* Microseconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.frac]Z", or -1. */
static int64_t parse_time(const char *text)
{
    struct tm tm = {0};
    int consumed = 0;
    if (!text || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year,
                        &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                        &tm.tm_sec, &consumed) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t seconds = timegm(&tm);
    if (seconds == (time_t)-1)
        return -1;
    int64_t micros = 0;
    const char *p = text + consumed;
    if (*p == '.') {
        int64_t scale = 100000;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            micros += (*p - '0') * scale;
    }
    if (strcmp(p, "Z") != 0)
        return -1;
    return (int64_t)seconds * 1000000 + micros;
}

static void note_run(struct input *input, struct tattle__reader *reader)
{
    const struct tattle_run_info *run = tattle__reader_run(reader);
    const struct tattle_summary *summary = tattle__reader_summary(reader);
    input->started_at = tattle__strdup(run->started_at);
    input->started_us = parse_time(run->started_at);
    input->duration_us = tattle__reader_duration_us(reader);
    input->seed = run->seed;
    input->jobs = run->jobs;
    input->executable = tattle__strdup(run->executable);
    uint64_t hash = TATTLE__HASH_START;
    for (int i = 0; i < run->argc; i++)
        hash = tattle__hash_add(hash, run->argv[i]) * 31 + 1;
    input->argv_hash = hash ^ (uint64_t)run->argc;
    input->sharded = run->sharded;
    input->shard_index = run->shard_index;
    input->shard_total = run->shard_total;
    input->interrupted =
        tattle__reader_cut_short(reader) || (summary && summary->interrupted);
    input->planned = run->planned;
    input->planned_open = run->planned_open;
    input->has_error_groups = tattle__reader_error_groups(reader) != NULL;
    input->summary_only = !tattle__reader_has_tests(reader);
    if (input->summary_only && summary)
        input->counts = *summary;
    if (input->summary_only && input->has_error_groups)
        input->error_groups =
            cJSON_Duplicate(tattle__reader_error_groups(reader), true);
}

/* The summary-only inputs' counts added to `summary`, and their error
 * groups one after the other in a new array (the caller deletes it) to
 * seed the merged groups with, NULL when none has any. */
static cJSON *add_summary_only(const struct inputs *inputs,
                               struct tattle_summary *summary)
{
    cJSON *groups = NULL;
    for (size_t i = 0; i < inputs->count; i++) {
        const struct input *input = &inputs->items[i];
        if (!input->summary_only)
            continue;
        summary->total += input->counts.total;
        summary->passed += input->counts.passed;
        summary->failed += input->counts.failed;
        summary->skipped += input->counts.skipped;
        summary->excluded += input->counts.excluded;
        summary->invalid += input->counts.invalid;
        summary->flaky += input->counts.flaky;
        const cJSON *group;
        cJSON_ArrayForEach(group, input->error_groups)
        {
            if (!groups)
                groups = cJSON_CreateArray();
            cJSON_AddItemToArray(groups, cJSON_Duplicate(group, true));
        }
    }
    return groups;
}

static struct tattle__reader *open_input(const struct input *input)
{
    return tattle__cli_open_report("merge", input->path);
}

/* ---- Pass 1: which ids may be in two inputs ------------------------------ */

enum { BLOOM_BITS = 1u << 23, BLOOM_PROBES = 4 };

struct hashes {
    uint64_t *items;
    size_t count, capacity;
};

static void add_hash(struct hashes *hashes, uint64_t hash)
{
    if (hashes->count == hashes->capacity) {
        hashes->capacity = hashes->capacity ? 2 * hashes->capacity : 64;
        hashes->items = tattle__realloc(
            hashes->items, hashes->capacity * sizeof *hashes->items);
    }
    hashes->items[hashes->count++] = hash;
}

static int compare_hashes(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool has_hash(const struct hashes *hashes, uint64_t hash)
{
    return hashes->count && bsearch(&hash, hashes->items, hashes->count,
                                    sizeof hash, compare_hashes);
}

/* True when the filter may hold `hash`; adds it. */
static bool bloom_test_and_add(unsigned char *bloom, uint64_t hash)
{
    uint32_t h1 = (uint32_t)hash, h2 = (uint32_t)(hash >> 32) | 1;
    bool seen = true;
    for (uint32_t k = 0; k < BLOOM_PROBES; k++) {
        uint32_t bit = (h1 + k * h2) & (BLOOM_BITS - 1);
        unsigned char mask = (unsigned char)(1u << (bit & 7));
        seen = seen && (bloom[bit >> 3] & mask);
        bloom[bit >> 3] |= mask;
    }
    return seen;
}

static int find_candidates(struct inputs *inputs, struct hashes *candidates)
{
    unsigned char *bloom = tattle__calloc(BLOOM_BITS / 8, 1);
    int status = TATTLE__EXIT_OK;
    for (size_t i = 0; i < inputs->count && status == TATTLE__EXIT_OK; i++) {
        struct tattle__reader *reader = open_input(&inputs->items[i]);
        if (!reader) {
            status = TATTLE__EXIT_BAD_INPUT;
            break;
        }
        char *id;
        int rc;
        while ((rc = tattle__reader_next_id(reader, &id)) > 0) {
            uint64_t hash = tattle__hash_text(id);
            if (bloom_test_and_add(bloom, hash))
                add_hash(candidates, hash);
            free(id);
        }
        if (rc < 0)
            status =
                tattle__cli_fail("merge", "%s", tattle__reader_error(reader));
        else
            note_run(&inputs->items[i], reader);
        tattle__reader_close(reader);
    }
    free(bloom);
    if (candidates->count > 1) /* no items array when nothing was a candidate */
        qsort(candidates->items, candidates->count, sizeof *candidates->items,
              compare_hashes);
    size_t unique = 0;
    for (size_t i = 0; i < candidates->count; i++)
        if (!unique || candidates->items[unique - 1] != candidates->items[i])
            candidates->items[unique++] = candidates->items[i];
    candidates->count = unique;
    return status;
}

/* ---- Pass 2: the candidates, exactly ------------------------------------- */

struct seen_id {
    char *id;
    uint64_t hash;
    size_t first_input, last_input;
};

struct seen_ids {
    struct seen_id *items;
    size_t count;
    size_t *slots; /* open addressing: index + 1, 0 empty */
    size_t slot_count;
};

static struct seen_id *find_seen(struct seen_ids *seen, const char *id,
                                 uint64_t hash, bool add)
{
    if (add && 2 * (seen->count + 1) > seen->slot_count) {
        size_t slot_count = seen->slot_count ? 2 * seen->slot_count : 64;
        size_t *slots = tattle__calloc(slot_count, sizeof *slots);
        for (size_t i = 0; i < seen->count; i++) {
            size_t at = seen->items[i].hash & (slot_count - 1);
            while (slots[at])
                at = (at + 1) & (slot_count - 1);
            slots[at] = i + 1;
        }
        free(seen->slots);
        seen->slots = slots;
        seen->slot_count = slot_count;
    }
    if (!seen->slot_count)
        return NULL;
    size_t at = hash & (seen->slot_count - 1);
    for (; seen->slots[at]; at = (at + 1) & (seen->slot_count - 1)) {
        struct seen_id *item = &seen->items[seen->slots[at] - 1];
        if (item->hash == hash && strcmp(item->id, id) == 0)
            return item;
    }
    if (!add)
        return NULL;
    seen->items =
        tattle__realloc(seen->items, (seen->count + 1) * sizeof *seen->items);
    seen->items[seen->count] =
        (struct seen_id){tattle__strdup(id), hash, SIZE_MAX, 0};
    seen->slots[at] = ++seen->count;
    return &seen->items[seen->count - 1];
}

static void release_seen(struct seen_ids *seen)
{
    for (size_t i = 0; i < seen->count; i++)
        free(seen->items[i].id);
    free(seen->items);
    free(seen->slots);
}

static int resolve_candidates(const struct inputs *inputs,
                              const struct hashes *candidates,
                              struct seen_ids *seen, bool keep_last)
{
    for (size_t i = 0; i < inputs->count; i++) {
        struct tattle__reader *reader = open_input(&inputs->items[i]);
        if (!reader)
            return TATTLE__EXIT_BAD_INPUT;
        char *id;
        int rc;
        while ((rc = tattle__reader_next_id(reader, &id)) > 0) {
            uint64_t hash = tattle__hash_text(id);
            if (has_hash(candidates, hash)) {
                struct seen_id *item = find_seen(seen, id, hash, true);
                if (item->first_input == SIZE_MAX)
                    item->first_input = i;
                else if (item->last_input != i && !keep_last) {
                    tattle__cli_fail(
                        "merge",
                        "test '%s' is in both %s and %s (--keep-last keeps "
                        "the later one)",
                        id, inputs->items[item->last_input].path,
                        inputs->items[i].path);
                    free(id);
                    tattle__reader_close(reader);
                    return TATTLE__EXIT_BAD_INPUT;
                }
                item->last_input = i;
            }
            free(id);
        }
        if (rc < 0) {
            tattle__cli_fail("merge", "%s", tattle__reader_error(reader));
            tattle__reader_close(reader);
            return TATTLE__EXIT_BAD_INPUT;
        }
        tattle__reader_close(reader);
    }
    return TATTLE__EXIT_OK;
}

/* ---- Pass 3: writing -------------------------------------------------------
 */

/* The merged run: the earliest start, the span to the latest end, and what
 * all inputs agree on (else the merge's own command line). */
static struct tattle_run_info merged_run(const struct inputs *inputs,
                                         struct tattle__reader *first, int argc,
                                         char **argv, uint64_t *duration_us)
{
    struct tattle_run_info run = *tattle__reader_run(first);
    const struct input *items = inputs->items;
    bool same_argv = true, same_executable = true, same_shard = true,
         times = true;
    int64_t start = INT64_MAX, end = INT64_MIN;
    uint64_t duration_sum = 0;
    run.planned = 0;
    for (size_t i = 0; i < inputs->count; i++) {
        const struct input *input = &items[i];
        same_argv = same_argv && input->argv_hash == items[0].argv_hash;
        same_executable =
            same_executable &&
            ((!input->executable && !items[0].executable) ||
             (input->executable && items[0].executable &&
              strcmp(input->executable, items[0].executable) == 0));
        same_shard = same_shard && input->sharded == items[0].sharded &&
                     input->shard_index == items[0].shard_index &&
                     input->shard_total == items[0].shard_total;
        if (input->started_us < 0)
            times = false;
        else {
            if (input->started_us < start) {
                start = input->started_us;
                run.started_at = input->started_at;
            }
            int64_t input_end = input->started_us + (int64_t)input->duration_us;
            if (input_end > end)
                end = input_end;
        }
        if (input->jobs > run.jobs)
            run.jobs = input->jobs;
        run.planned += input->planned;
        run.planned_open = run.planned_open || input->planned_open;
        duration_sum += input->duration_us;
    }
    *duration_us =
        times && inputs->count ? (uint64_t)(end - start) : duration_sum;
    if (!same_argv) {
        run.argc = argc;
        run.argv = argv;
    }
    if (!same_executable)
        run.executable = NULL;
    if (!same_shard)
        run.sharded = false;
    return run;
}

static int write_merged(const struct inputs *inputs,
                        const struct hashes *candidates, struct seen_ids *seen,
                        const char *format, const char *output,
                        struct tattle_report_options *options,
                        const struct tattle_summary *counted, int argc,
                        char **argv)
{
    bool interrupted = false, summary_only = true;
    for (size_t i = 0; i < inputs->count; i++) {
        options->group_by_error =
            options->group_by_error || inputs->items[i].has_error_groups;
        interrupted = interrupted || inputs->items[i].interrupted;
        summary_only = summary_only && inputs->items[i].summary_only;
    }
    struct tattle_summary summary = *counted;
    summary.interrupted = interrupted;
    options->summary_only = options->summary_only || summary_only;
    struct tattle__reader *reader = open_input(&inputs->items[0]);
    if (!reader)
        return TATTLE__EXIT_BAD_INPUT;
    struct tattle__cli_writer writer;
    int status =
        tattle__cli_writer_open(&writer, "merge", format, output, options);
    if (status != TATTLE__EXIT_OK) {
        tattle__reader_close(reader);
        return status;
    }
    struct tattle_run_info run =
        merged_run(inputs, reader, argc, argv, &summary.duration_us);
    tattle__cli_writer_begin(&writer, &run);
    for (size_t i = 0; i < inputs->count; i++) {
        if (i > 0 && !(reader = open_input(&inputs->items[i]))) {
            tattle__cli_writer_abort(&writer);
            return TATTLE__EXIT_BAD_INPUT;
        }
        struct tattle__read_result result;
        int rc;
        while ((rc = tattle__reader_next(reader, &result)) > 0) {
            const char *id = result.test.id;
            uint64_t hash = tattle__hash_text(id);
            struct seen_id *item = has_hash(candidates, hash)
                                       ? find_seen(seen, id, hash, false)
                                       : NULL;
            if (!item || item->last_input == i) {
                tattle__summary_count(&summary, &result.record.result);
                tattle__cli_writer_test(&writer, &result.record.result);
            }
            tattle__read_result_release(&result);
        }
        if (rc < 0) {
            tattle__cli_fail("merge", "%s", tattle__reader_error(reader));
            tattle__reader_close(reader);
            tattle__cli_writer_abort(&writer);
            return TATTLE__EXIT_BAD_INPUT;
        }
        tattle__reader_close(reader);
    }
    return tattle__cli_writer_end(&writer, "merge", &summary);
}

int tattle__cli_merge(int argc, char **argv)
{
    const char *output = NULL, *format = "json";
    bool keep_last = false, have_output = false;
    struct tattle_report_options options = {0};
    struct inputs inputs = {0};
    int status = TATTLE__EXIT_OK;
    for (int i = 1; i < argc && status == TATTLE__EXIT_OK; i++) {
        const char *value;
        bool missing;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            release_inputs(&inputs);
            return TATTLE__EXIT_OK;
        }
        if (tattle__cli_option(argc, argv, &i, "--output", "-o", &value,
                               &missing)) {
            if (missing)
                status = tattle__cli_fail("merge", "-o needs a FILE");
            output = value;
            have_output = true;
        } else if (tattle__cli_option(argc, argv, &i, "--to", NULL, &value,
                                      &missing)) {
            if (missing)
                status = tattle__cli_fail("merge", "--to needs a FORMAT");
            format = value;
        } else if (strcmp(argv[i], "--keep-last") == 0)
            keep_last = true;
        else if (strcmp(argv[i], "--group-by-error") == 0)
            options.group_by_error = true;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            status = tattle__cli_fail(
                "merge", "unknown option '%s' (tattle merge --help)", argv[i]);
        else {
            struct stat info;
            if (strcmp(argv[i], "-") != 0 && stat(argv[i], &info) == 0 &&
                S_ISDIR(info.st_mode))
                status = add_directory(&inputs, argv[i]);
            else
                add_input(&inputs, argv[i]);
        }
    }
    if (status == TATTLE__EXIT_OK && (!have_output || inputs.count == 0))
        status =
            tattle__cli_fail("merge", "usage: tattle merge -o OUT.json IN... "
                                      "(tattle merge --help)");
    struct hashes candidates = {0};
    struct seen_ids seen = {0};
    struct tattle_summary summary_only_counts = {0};
    if (status == TATTLE__EXIT_OK)
        status = find_candidates(&inputs, &candidates);
    if (status == TATTLE__EXIT_OK && candidates.count)
        status = resolve_candidates(&inputs, &candidates, &seen, keep_last);
    if (status == TATTLE__EXIT_OK) {
        cJSON *groups_read = add_summary_only(&inputs, &summary_only_counts);
        options.error_groups_read = groups_read;
        status =
            write_merged(&inputs, &candidates, &seen, format, output, &options,
                         &summary_only_counts, argc + 1, argv - 1);
        cJSON_Delete(groups_read);
    }
    free(candidates.items);
    release_seen(&seen);
    release_inputs(&inputs);
    return status;
}
