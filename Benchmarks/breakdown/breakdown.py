#!/usr/bin/env python3
"""Instructions per line outside the signature library, by stage, for `tokenverify verify`.

Runs a tokenverify binary under callgrind (a copy stripped of DWARF, as tokenbench does) over
200 and 1,000 lines of each workload (JWS and CWT Ed25519 tokens of `tokenverify gen --seed 7`,
bare and as JSON requests, distinct and each token ten times in a row of ten), one verifier
thread, and divides the difference of each stage's inclusive cost (`callgrind_annotate
--inclusive=yes`) by the 800 lines between the sizes, so start-up and key loading cancel out.

    Benchmarks/breakdown/breakdown.py .build/release/tokenverify /tmp/breakdown

(`BREAKDOWN_REUSE=1` reads the profiles already in the directory again instead of remaking them.)
"""
import os, re, subprocess, sys

SIZES = (200, 1000)
SIGNATURE_OBJECTS = ('libsodium', 'libcrypto')
SIGNATURE_PREFIXES = ('tv_order_', 'tv_p256_table_', 'tv_ed25519_', 'ge25519_', 'sc25519_', 'fe25519_',
                      'crypto_', '_crypto_', 'sodium_', '_sodium_')
# tokenverify's SipHash: one byte string a call, and a batch's tokens at once (counted as ours).
DIGESTS = ('tv_siphash24_128', 'tv_siphash24_128_many')
LINE = re.compile(r'^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:.*?):(.*) \[(.*)\]\s*$')


def annotate(profile, inclusive):
    args = ['callgrind_annotate', '--threshold=100'] + (['--inclusive=yes'] if inclusive else []) + [profile]
    rows = []
    for line in subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines():
        match = LINE.match(line)
        if match:
            rows.append((int(match.group(1).replace(',', '')), match.group(2), match.group(3)))
    names = [name for _, name, _ in rows]
    demangled = subprocess.run(['swift', 'demangle', '--simplified'], input='\n'.join(names),
                               capture_output=True, text=True, check=True).stdout.splitlines()
    return [(cost, plain, name, obj) for (cost, name, obj), plain in zip(rows, demangled)]


def is_signature(name, obj):
    return any(lib in obj for lib in SIGNATURE_OBJECTS) or name.startswith(SIGNATURE_PREFIXES)


def profile_figures(profile):
    """Inclusive cost by demangled name (the largest of functions of that name), and the totals."""
    inclusive = {}
    for cost, plain, name, obj in annotate(profile, True):
        key = name if name in DIGESTS else plain
        inclusive[key] = max(inclusive.get(key, 0), cost)
    total = signature = 0
    for cost, plain, name, obj in annotate(profile, False):
        total += cost
        if is_signature(name, obj):
            signature += cost
    return inclusive, total, signature + signature_calls_into_libc(profile)


# The C library's leaf functions (they call nothing of ours back): the allocator and the copies.
C_LIBRARY_LEAVES = re.compile(
    r'(malloc|free|calloc|realloc|posix_memalign|aligned_alloc|memalign|_*mem(cpy|move|set|cmp)\w*'
    r'|_*explicit_bzero\w*)')


def signature_calls_into_libc(profile):
    """The inclusive cost of the calls the signature library makes into the C library (its
    allocations and copies), which count as the library's, as tokenbench counts them. A call's
    callee lies in the object its `cob=` names, or in the caller's when there is none."""
    objects, functions = {}, {}
    def resolve(value, names):
        match = re.match(r'\((\d+)\)\s*(.*)', value.strip())
        if not match:
            return value.strip()
        if match.group(2):
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), value.strip())
    total = 0
    ob = fn = called = '???'
    callee_object = None
    pending = None
    with open(profile) as lines:
        for line in lines:
            line = line.rstrip('\n')
            if pending is not None and line[:1] in '0123456789+-*':
                callee_object, callee = pending
                if (is_signature(fn, ob) and os.path.basename(callee_object).startswith(('libc.so', 'libc-'))
                        and C_LIBRARY_LEAVES.fullmatch(callee)):
                    total += int(line.split()[1])
                pending = None
            elif line.startswith('ob='):
                ob = resolve(line[3:], objects)
            elif line.startswith('fn='):
                fn = resolve(line[3:], functions)
            elif line.startswith('cob='):
                callee_object = resolve(line[4:], objects)
            elif line.startswith('cfn='):
                called = resolve(line[4:], functions)
            elif line.startswith('calls='):
                pending = (callee_object or ob, called)
                callee_object = None
    return total


def stages(inc, outside, signature):
    def f(*names):
        """The largest inclusive cost of a function whose demangled name matches one of `names`
        (regular expressions, whole names; the compiler's inlining decides which are there)."""
        patterns = [re.compile(n) for n in names]
        return max([cost for name, cost in inc.items() if any(p.fullmatch(name) for p in patterns)], default=0)
    parse = f(r'static ParsedToken\.parse\(_:(headerMemo:)?\)')
    prepare = f(r'VerificationWorker\.prepare\(token:context:snapshot:(into:)?\)')
    signature_check = f(r'(specialized )?SignatureCheck\.check\(_:_:_:(_:)?\)')
    base64 = f(r'(specialized )?static Base64URL\.decode\(_:into:\)')
    # The batch's digests (one call for the batch's tokens, made by the look-ahead) and the
    # signature cache's keys (one call a token, made in `prepare` once the key is known).
    batch_digests = inc.get('tv_siphash24_128_many', 0)
    single_digests = inc.get('tv_siphash24_128', 0)
    # The batch's look-ahead makes the digests (and asks for the caches' memory) before `prepare`.
    lookahead = f(r'(specialized )?VerificationWorker\.lookAhead(<A>)?\(_:_:_:cache:\)')
    token_cache = f(r'VerificationWorker\.parse\(_:cache:_:\)') - parse + lookahead - batch_digests
    checks = prepare - f(r'VerificationWorker\.parse\(_:cache:_:\)') - single_digests
    # The key tables are built on another thread, and may be cut short when a run ends early.
    tables = (f(r'closure #1 in Ed25519PublicKey\.requestTable\(\)')
              + f(r'closure #1 in P256PublicKey\.requestTable\(\)'))
    # The signature pass: the batch's signatures verified together, then check 12 for each token
    # (which verifies what the batch left: a key whose table is not ready, a repeat in the batch).
    # Where the compiler inlined the pass, check 12 alone stands for it.
    signature_pass = max(f(r'(specialized )?VerificationWorker\.withBatchSignatures(<[^>]*>)?\(_:_:_:snapshot:_:\)'),
                         signature_check)
    signature_glue = signature_pass - (signature - tables)
    answer = f(r'(closure #1 in ){4}LineAnswerer\.answer\(_:lines:against:to:\)',
               r'(closure #1 in ){3}LineAnswerer\.answer\(_:(against:)?to:\)',
               r'(partial apply for )?(specialized )?(closure #1 in ){4}LineAnswerer\.answer<A>\(_:lines:against:into:\)')
    request = f(r'(specialized )?RequestBatch\.init\(_:(_:)?requests:problems:oversizeDetail:\)')
    reader = f(r'VerifyPipeline\.run\(inputs:output:stopRequested:\)')
    worker = f(r'closure #1 in VerifyPipeline\.run\(inputs:output:stopRequested:\)')
    answerer = f(r'LineAnswerer\.answer\(_:(lines:)?(against:)?to:\)')
    rows = [
        ('reading, splitting lines, cutting chunks, hand-off to the worker (reader)', reader),
        ('request JSON (RequestBatch.init)', request),
        ('base64url (Base64URL.decode)', base64),
        ('header and claims (ParsedToken.parse without base64url)', parse - base64),
        ('keyed digest (SipHash-2-4: the token, and the signature cache key)', batch_digests + single_digests),
        ('parse cache (look-ahead, lookup, note)', token_cache),
        ('checks and lookups 3-11b', checks),
        ('signature pass and check 12 outside the library (key, message, cache)', signature_glue),
        ('answer writing', answer),
        ('batch engine rest (LineAnswerer.answer)',
         answerer - request - lookahead - prepare - signature_pass - answer),
        ('worker loop, answer sink, pipeline (worker)', worker - answerer),
    ]
    listed = sum(cost for name, cost in rows)
    rows.append(('the rest (allocation, runtime, other threads)', outside - listed))
    rows.append(('TOTAL outside the signature library (tokenbench classification)', outside))
    return rows


def workloads(tv, work):
    sets = {}
    for fmt, share in (('jws', '0'), ('cwt', '1')):
        directory = os.path.join(work, fmt)
        if not os.path.exists(os.path.join(directory, 'expected.jsonl')):
            subprocess.run([tv, 'gen', '--count', str(SIZES[1]), '--seed', '7', '--es256-share', '0',
                            '--cwt-share', share, '--out', directory, '--force'], check=True, capture_output=True)
        sets[fmt] = directory
    for fmt, directory in sets.items():
        for kind, source in (('bare', 'tokens.txt'), ('request', 'requests.jsonl')):
            lines = open(os.path.join(directory, source)).read().splitlines()
            for repeat in ('distinct', 'repeated'):
                files = []
                for size in SIZES:
                    chosen = lines[:size] if repeat == 'distinct' else [
                        lines[i // 10] for i in range(size)]
                    path = os.path.join(work, f'{fmt}-{kind}-{repeat}-{size}.txt')
                    with open(path, 'w') as out:
                        out.write('\n'.join(chosen) + '\n')
                    files.append(path)
                yield f'{fmt} {kind} {repeat}', directory, files


def main():
    tv, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    stripped = os.path.join(work, 'tokenverify-stripped')
    subprocess.run(['objcopy', '--strip-debug', tv, stripped], check=True)
    columns = {}
    for name, directory, files in workloads(tv, work):
        figures = []
        for path in files:
            profile = path + '.callgrind'
            if not (os.environ.get('BREAKDOWN_REUSE') and os.path.exists(profile)):
                subprocess.run(['valgrind', '--tool=callgrind', '--callgrind-out-file=' + profile, '--dump-line=no',
                               stripped, 'verify', '--threads', '1', '--keys', os.path.join(directory, 'keys.jwks'),
                               '--revocations', os.path.join(directory, 'revocations.jsonl'), '--at', '1800000000',
                               path], check=True, capture_output=True,
                               env=dict(os.environ, SWIFT_DETERMINISTIC_HASHING='1'))
            inc, total, signature = profile_figures(profile)
            figures.append(stages(inc, total - signature, signature))
        lines = SIZES[1] - SIZES[0]
        columns[name] = [(a[0], (b[1] - a[1]) / lines) for a, b in zip(*figures)]
        print(f'{name}: {columns[name][-1][1]:,.0f} instructions a line outside the signature library',
              file=sys.stderr)
    names = list(columns)
    print('| stage | ' + ' | '.join(names) + ' |')
    print('| --- |' + ' ---: |' * len(names))
    for index, (stage, _) in enumerate(columns[names[0]]):
        print(f'| {stage} | ' + ' | '.join(f'{columns[n][index][1]:,.0f}' for n in names) + ' |')


if __name__ == '__main__':
    main()
