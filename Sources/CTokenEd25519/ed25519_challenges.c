// The wide path's hashing: SHA-512(R‖A‖M) of a group of up to eight signatures at once, with
// Intel's Multi-Buffer Crypto for IPsec library (libIPSec_MB.so.1: Debian's libipsec-mb1), whose
// job manager runs SHA-512 in eight AVX-512 lanes (four with AVX2, two with SSE: it picks what the
// CPU has). libsodium's crypto_hash_sha512, which the table path and the library's own verify use,
// is portable C and took about 15% of a wide Ed25519 verify; eight 397-byte inputs (a typical
// JWS's R‖A‖M) hash in about 270 ns each here instead of 980.
//
// The library is loaded with dlopen at the first group, like libcurl for `fetch`: the binary (and
// the release archive, which runs on machines without it) does not need it to start, and where it
// is missing, or is another major or minor version than the header compiled here (its manager's
// and jobs' layout), libsodium hashes every input. Linking it statically would double the binary
// (its managers reference every cipher it has).
//
// A manager is not thread-safe, so each thread has its own (about 200 KB, with 64 KB of scratch
// into which each lane's R‖A‖M is copied: the library hashes one contiguous buffer), made at the
// thread's first group and freed when the thread ends. Where it cannot be made, an input is longer
// than the scratch or a job does not report completion, libsodium hashes that input: the digest is
// SHA-512's either way. The wide self-test (ed25519_self_test.c) hashes through here, so a library
// that gave other digests would keep the wide path off.
#include "ed25519_challenges.h"
#include "CTokenEd25519.h"
#include "CTokenEd25519Testing.h"

#include <dlfcn.h>
#include <intel-ipsec-mb.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

// The library's entry points the hashing calls by name (the job calls go through the manager).
static struct {
    unsigned (*version)(void);
    const char *(*version_string)(void);
    IMB_MGR *(*alloc)(uint64_t flags);
    void (*init_auto)(IMB_MGR *manager, IMB_ARCH *arch);
    int (*error)(IMB_MGR *manager);
    void (*free)(IMB_MGR *manager);
} library;
static int library_loaded;
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void library_load(void) {
    void *handle = dlopen("libIPSec_MB.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    *(void **)&library.version = dlsym(handle, "imb_get_version");
    *(void **)&library.version_string = dlsym(handle, "imb_get_version_str");
    *(void **)&library.alloc = dlsym(handle, "alloc_mb_mgr");
    *(void **)&library.init_auto = dlsym(handle, "init_mb_mgr_auto");
    *(void **)&library.error = dlsym(handle, "imb_get_errno");
    *(void **)&library.free = dlsym(handle, "free_mb_mgr");
    if (library.version == NULL || library.version_string == NULL || library.alloc == NULL || library.init_auto == NULL || library.error == NULL ||
        library.free == NULL || (library.version() >> 8) != (IMB_VERSION_NUM >> 8)) {
        dlclose(handle);
        return;
    }
    library_loaded = 1;
}

typedef struct {
    IMB_MGR *manager;
    uint8_t *scratch;  // TV_ED25519_HASH_LANES inputs of TV_ED25519_HASH_SCRATCH bytes
    int arch;
} hasher;

static pthread_key_t hasher_key;
static int hasher_key_made;
static pthread_once_t hasher_once = PTHREAD_ONCE_INIT;
static _Thread_local hasher *thread_hasher;
static _Thread_local int thread_hasher_failed;

static void hasher_free(void *value) {
    hasher *h = value;
    if (h == NULL) return;
    if (h->manager != NULL) library.free(h->manager);
    free(h->scratch);
    free(h);
}

static void hasher_key_make(void) { hasher_key_made = pthread_key_create(&hasher_key, hasher_free) == 0; }

// This thread's manager, made at its first call; NULL (and libsodium from then on) where it fails.
static hasher *hasher_get(void) {
    if (thread_hasher != NULL || thread_hasher_failed) return thread_hasher;
    thread_hasher_failed = 1;
    pthread_once(&library_once, library_load);
    pthread_once(&hasher_once, hasher_key_make);
    if (!library_loaded || !hasher_key_made) return NULL;
    hasher *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    h->manager = library.alloc(0);
    h->scratch = malloc((size_t)TV_ED25519_HASH_LANES * TV_ED25519_HASH_SCRATCH);
    IMB_ARCH arch = IMB_ARCH_NONE;
    if (h->manager != NULL) library.init_auto(h->manager, &arch);
    if (h->manager == NULL || h->scratch == NULL || library.error(h->manager) != 0 || arch == IMB_ARCH_NONE ||
        pthread_setspecific(hasher_key, h) != 0) {
        hasher_free(h);
        return NULL;
    }
    h->arch = (int)arch;
    thread_hasher = h;
    thread_hasher_failed = 0;
    return h;
}

// A job the manager hands back: its lane's flag is set when it reports the digest written.
static void hash_job_done(const IMB_JOB *job) {
    if (job != NULL && job->status == IMB_STATUS_COMPLETED) *(uint8_t *)job->user_data = 1;
}

// Lane l's input copied into its scratch and submitted as a plain SHA-512 job.
static void hash_job_submit(hasher *h, uint8_t digest[64], uint8_t *done, const uint8_t *input, size_t length) {
    IMB_JOB *job = IMB_GET_NEXT_JOB(h->manager);
    job->cipher_mode = IMB_CIPHER_NULL;
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->chain_order = IMB_ORDER_HASH_CIPHER;
    job->hash_alg = IMB_AUTH_SHA_512;
    job->src = input;
    job->dst = digest;
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = 0;
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = length;
    job->auth_tag_output = digest;
    job->auth_tag_output_len_in_bytes = 64;
    job->user_data = done;
    hash_job_done(IMB_SUBMIT_JOB(h->manager));
}

void tv_ed25519_hash_lanes(uint8_t digests[][64], const uint8_t *const r[], const uint8_t *const a[],
                           const uint8_t *const messages[], const size_t lengths[], int count) {
    uint8_t done[TV_ED25519_HASH_LANES] = {0};
    hasher *h = count > 0 ? hasher_get() : NULL;
    if (h != NULL) {
        for (int l = 0; l < count; l++) {
            if (lengths[l] > TV_ED25519_HASH_SCRATCH - 64) continue;
            uint8_t *input = h->scratch + (size_t)l * TV_ED25519_HASH_SCRATCH;
            memcpy(input, r[l], 32);
            memcpy(input + 32, a[l], 32);
            if (lengths[l] > 0) memcpy(input + 64, messages[l], lengths[l]);
            hash_job_submit(h, digests[l], &done[l], input, 64 + lengths[l]);
        }
        const IMB_JOB *job;
        while ((job = IMB_FLUSH_JOB(h->manager)) != NULL) hash_job_done(job);
    }
    for (int l = 0; l < count; l++) {
        if (done[l]) continue;
        crypto_hash_sha512_state state;
        crypto_hash_sha512_init(&state);
        crypto_hash_sha512_update(&state, r[l], 32);
        crypto_hash_sha512_update(&state, a[l], 32);
        crypto_hash_sha512_update(&state, messages[l], lengths[l]);
        crypto_hash_sha512_final(&state, digests[l]);
    }
}

const char *tv_ed25519_wide_hash_library(void) { return hasher_get() != NULL ? library.version_string() : NULL; }

int tv_ed25519_wide_hash_arch(void) {
    hasher *h = hasher_get();
    return h != NULL ? h->arch : 0;
}

_Static_assert(TV_ED25519_HASH_SCRATCH_FOR_TESTING == TV_ED25519_HASH_SCRATCH - 64, "the testing header's scratch");

void tv_ed25519_hash_lanes_for_testing(uint8_t *digests, const uint8_t *const r[], const uint8_t *const a[],
                                       const uint8_t *const messages[], const size_t lengths[], int count) {
    tv_ed25519_hash_lanes((uint8_t (*)[64])digests, r, a, messages, lengths, count);
}
