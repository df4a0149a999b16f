/* One HTTPS GET over libcurl, loaded with dlopen: the binary does not need libcurl to start, and
 * only `tokenverify fetch` loads it. curl.h gives the option numbers and types; every call goes
 * through a pointer found with dlsym. */
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>

#include "https_get.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    int ready;
    char problem[256];
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void) {
    static const char *names[] = {"libcurl.so.4", "libcurl.so"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(curl.problem, sizeof curl.problem,
                 "cannot load libcurl.so.4 (Debian and Ubuntu: apt-get install libcurl4): %s", why ? why : "not found");
        return;
    }
#define FIND(field, symbol)                                                                          \
    do {                                                                                             \
        *(void **)&curl.field = dlsym(library, symbol);                                              \
        if (curl.field == NULL) {                                                                    \
            snprintf(curl.problem, sizeof curl.problem, "libcurl.so.4 has no %s", symbol);           \
            return;                                                                                  \
        }                                                                                            \
    } while (0)
    FIND(global_init, "curl_global_init");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_perform, "curl_easy_perform");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
#undef FIND
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(curl.problem, sizeof curl.problem, "curl_global_init failed");
        return;
    }
    curl.ready = 1;
}

/* The transfer's state, shared with libcurl's callbacks. */
typedef struct {
    const tv_https_request *request;
    tv_https_response *response;
    int too_large;
    int write_errno;
} transfer;

static size_t write_body(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t length = size * count;
    if (t->response->body_bytes + (long long)length > t->request->max_body_bytes) {
        t->too_large = 1;
        return 0;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t written = write(t->request->body_fd, data + done, length - done);
        if (written < 0) {
            if (errno == EINTR) continue;
            t->write_errno = errno;
            return 0;
        }
        done += (size_t)written;
    }
    t->response->body_bytes += (long long)length;
    return length;
}

/* Copies a header's value, trimmed, when `line` is that header. */
static void take_header(const char *line, size_t length, const char *name, char *into, size_t capacity) {
    size_t name_length = strlen(name);
    if (length <= name_length || strncasecmp(line, name, name_length) != 0 || line[name_length] != ':') return;
    const char *value = line + name_length + 1;
    const char *end = line + length;
    while (value < end && (*value == ' ' || *value == '\t')) value++;
    while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) end--;
    size_t value_length = (size_t)(end - value);
    if (value_length >= capacity) value_length = 0; /* too long to keep: dropped, never cut */
    memcpy(into, value, value_length);
    into[value_length] = 0;
}

static size_t read_header(char *line, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t length = size * count;
    if (length >= 5 && strncmp(line, "HTTP/", 5) == 0) { /* a new response (after a 1xx) */
        t->response->etag[0] = 0;
        t->response->last_modified[0] = 0;
    }
    take_header(line, length, "ETag", t->response->etag, sizeof t->response->etag);
    take_header(line, length, "Last-Modified", t->response->last_modified, sizeof t->response->last_modified);
    return length;
}

static int progress(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    transfer *t = context;
    return t->request->should_stop != NULL && t->request->should_stop() ? 1 : 0;
}

static int fail(tv_https_response *response, int result, const char *message) {
    snprintf(response->error, sizeof response->error, "%s", message);
    return result;
}

/* Whether `value` holds a control character (C0 or DEL): such a validator could end its header
   line and start another, so it is never sent (fetch does not keep one either). */
static int has_control(const char *value) {
    for (; *value; value++) {
        if ((unsigned char)*value < 0x20 || *value == 0x7f) return 1;
    }
    return 0;
}

/* The conditional request's headers (NULL when there are none). */
static struct curl_slist *conditional_headers(const tv_https_request *request) {
    struct curl_slist *headers = NULL;
    char line[1024];
    if (request->if_none_match != NULL && !has_control(request->if_none_match)) {
        snprintf(line, sizeof line, "If-None-Match: %s", request->if_none_match);
        headers = curl.slist_append(headers, line);
    }
    if (request->if_modified_since != NULL && !has_control(request->if_modified_since)) {
        snprintf(line, sizeof line, "If-Modified-Since: %s", request->if_modified_since);
        headers = curl.slist_append(headers, line);
    }
    return headers;
}

/* Sets up `easy` for one GET of `request`: https only, no redirect followed, the peer verified,
   the time and size limits, the callbacks on `t`. */
static CURLcode configure(CURL *easy, const tv_https_request *request, transfer *t, char *error,
                          struct curl_slist *headers) {
    CURLcode code = CURLE_OK;
#define SET(option, value) \
    if (code == CURLE_OK) code = curl.easy_setopt(easy, option, value)
    SET(CURLOPT_URL, request->url);
    SET(CURLOPT_ERRORBUFFER, error);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    SET(CURLOPT_TIMEOUT_MS, request->timeout_ms);
    SET(CURLOPT_CONNECTTIMEOUT_MS, request->timeout_ms);
    SET(CURLOPT_USERAGENT, "tokenverify-fetch");
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_body_bytes);
    SET(CURLOPT_WRITEFUNCTION, write_body);
    SET(CURLOPT_WRITEDATA, t);
    SET(CURLOPT_HEADERFUNCTION, read_header);
    SET(CURLOPT_HEADERDATA, t);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, progress);
    SET(CURLOPT_XFERINFODATA, t);
    if (headers != NULL) SET(CURLOPT_HTTPHEADER, headers);
#undef SET
    if (code == CURLE_OK) {
        /* https only, also for a libcurl older than CURLOPT_PROTOCOLS_STR (7.85) */
        if (curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "https") != CURLE_OK) {
            code = curl.easy_setopt(easy, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTPS);
        }
    }
    if (code == CURLE_OK && request->ca_bundle != NULL) {
        struct curl_blob blob = {(void *)request->ca_bundle, request->ca_bundle_length, CURL_BLOB_COPY};
        code = curl.easy_setopt(easy, CURLOPT_CAINFO_BLOB, &blob);
        if (code != CURLE_OK) {
            snprintf(error, CURL_ERROR_SIZE, "this libcurl cannot take extra CA certificates (CURLOPT_CAINFO_BLOB, 7.77)");
        }
    }
    return code;
}

/* The result of a transfer that ended with `code`: the response's status, length and redirect
   target when it completed, else why not, in `response->error`. */
static int outcome(CURL *easy, CURLcode code, const transfer *t, tv_https_response *response, const char *error) {
    if (code == CURLE_OK) {
        long status = 0;
        curl_off_t length = -1;
        char *location = NULL;
        curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        curl.easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
        curl.easy_getinfo(easy, CURLINFO_REDIRECT_URL, &location);
        response->status = status;
        response->content_length = (long long)length;
        if (location != NULL) snprintf(response->location, sizeof response->location, "%s", location);
        return TV_HTTPS_OK;
    }
    if (code == CURLE_OPERATION_TIMEDOUT) {
        return fail(response, TV_HTTPS_TIMED_OUT, error[0] ? error : curl.easy_strerror(code));
    }
    if (code == CURLE_ABORTED_BY_CALLBACK) return fail(response, TV_HTTPS_STOPPED, "stopped");
    if (t->too_large || code == CURLE_FILESIZE_EXCEEDED) {
        return fail(response, TV_HTTPS_TOO_LARGE, "the body is larger than the limit");
    }
    if (t->write_errno != 0) {
        snprintf(response->error, sizeof response->error, "cannot write the body: %s", strerror(t->write_errno));
        return TV_HTTPS_FAILED;
    }
    return fail(response, TV_HTTPS_FAILED, error[0] ? error : curl.easy_strerror(code));
}

int tv_https_get(const tv_https_request *request, tv_https_response *response) {
    memset(response, 0, sizeof *response);
    response->content_length = -1;
    pthread_once(&curl_once, load_curl);
    if (!curl.ready) return fail(response, TV_HTTPS_UNAVAILABLE, curl.problem);
    CURL *easy = curl.easy_init();
    if (easy == NULL) return fail(response, TV_HTTPS_FAILED, "curl_easy_init failed");
    transfer t = {request, response, 0, 0};
    char error[CURL_ERROR_SIZE] = {0};
    struct curl_slist *headers = conditional_headers(request);
    CURLcode code = configure(easy, request, &t, error, headers);
    if (code == CURLE_OK) code = curl.easy_perform(easy);
    int result = outcome(easy, code, &t, response, error);
    if (headers != NULL) curl.slist_free_all(headers);
    curl.easy_cleanup(easy);
    return result;
}

int tv_https_default_ca_file(char *path, size_t capacity) {
    if (capacity == 0) return TV_HTTPS_FAILED;
    path[0] = 0;
    pthread_once(&curl_once, load_curl);
    if (!curl.ready) {
        snprintf(path, capacity, "%s", curl.problem);
        return TV_HTTPS_UNAVAILABLE;
    }
    CURL *easy = curl.easy_init();
    if (easy == NULL) return TV_HTTPS_OK;
    char *file = NULL;
    /* CURLINFO_CAINFO is libcurl 7.84 and later; an older one answers an error and leaves NULL */
    if (curl.easy_getinfo(easy, CURLINFO_CAINFO, &file) == CURLE_OK && file != NULL) {
        snprintf(path, capacity, "%s", file);
    }
    curl.easy_cleanup(easy);
    return TV_HTTPS_OK;
}
