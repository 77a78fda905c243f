/* replay: run a fuzz target over files and directories without a fuzzing
   engine (gcc or clang, with sanitizers). Each input is copied into an
   allocation of exactly its size, so reading one byte past it is caught.
   Prints one line per directory and a final "N passed, N failed"; a crash
   stops everything, as it should. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_helpers.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long passed, failed;

static void run_file(const char *path)
{
    size_t len = 0;
    uint8_t *read = util_read_file(path, &len), *exact;
    if (!read) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        failed++;
        return;
    }
    /* an allocation of exactly the input's size: reading past it is caught */
    exact = (uint8_t *)malloc(len ? len : 1);
    if (!exact) {
        fprintf(stderr, "replay: out of memory for %s\n", path);
        free(read);
        failed++;
        return;
    }
    memcpy(exact, read, len);
    free(read);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    passed++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_path(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    if (stat(path, &st) != 0) { fprintf(stderr, "replay: no such path %s\n", path); failed++; return; }
    if (!S_ISDIR(st.st_mode)) { run_file(path); return; }
    d = opendir(path);
    if (!d) { failed++; return; }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) { cap = cap ? 2 * cap : 64; names = (char **)realloc(names, cap * sizeof *names); }
        names[n] = (char *)malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[n], "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name); /* same order on every machine */
    for (i = 0; i < n; i++) { run_path(names[i]); free(names[i]); }
    free(names);
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) run_path(argv[i]);
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
