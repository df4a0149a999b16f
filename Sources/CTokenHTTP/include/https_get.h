#ifndef TOKENVERIFY_HTTPS_GET_H
#define TOKENVERIFY_HTTPS_GET_H

#include <stddef.h>

/* One HTTPS GET over libcurl, which is loaded with dlopen on first use (libcurl.so.4), so that
 * nothing but `tokenverify fetch` needs it. No libcurl type appears here. */

/* What to ask for. Strings are NUL-terminated; NULL where unused. */
typedef struct tv_https_request {
    const char *url;                 /* an https URL; no redirect is followed */
    const char *if_none_match;       /* an ETag to send as If-None-Match */
    const char *if_modified_since;   /* a Last-Modified to send as If-Modified-Since */
    const char *ca_bundle;           /* PEM certificates trusted instead of the default bundle */
    size_t ca_bundle_length;
    long timeout_ms;                 /* the whole exchange, connection included */
    int body_fd;                     /* the body is written here */
    long long max_body_bytes;        /* a larger body fails the request */
    int (*should_stop)(void);        /* polled during the transfer; non-zero aborts it */
} tv_https_request;

/* What came back. */
typedef struct tv_https_response {
    long status;                     /* HTTP status, 0 when no response came */
    long long content_length;        /* the Content-Length header, -1 when absent */
    long long body_bytes;            /* bytes written to body_fd */
    char etag[512];
    char last_modified[128];
    char location[4096];             /* a redirect's target, resolved against the URL */
    char error[512];                 /* why the exchange failed, when it did */
} tv_https_response;

/* Results of tv_https_get. */
enum {
    TV_HTTPS_OK = 0,          /* a response came (any status); the body is in body_fd */
    TV_HTTPS_FAILED = 1,      /* no complete response: error says why */
    TV_HTTPS_TIMED_OUT = 2,
    TV_HTTPS_STOPPED = 3,     /* should_stop asked to stop */
    TV_HTTPS_TOO_LARGE = 4,
    TV_HTTPS_UNAVAILABLE = 5, /* libcurl cannot be loaded: error says why */
};

/* Performs the request; fills `response`. Safe to call from several threads. */
int tv_https_get(const tv_https_request *request, tv_https_response *response);

/* libcurl's default CA bundle file (copied into `path`), or an empty string when it has none or
 * cannot be loaded. Returns 0, or TV_HTTPS_UNAVAILABLE with the reason in `path`. */
int tv_https_default_ca_file(char *path, size_t capacity);

#endif
