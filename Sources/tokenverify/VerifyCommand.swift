import ArgumentParser
import Dispatch
import LineProtocol
import LiveState
import TokenConcurrency
import TokenFetch
import TokenFormats
import TokenStream
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

extension TokenVerify {
    /// `tokenverify verify`: the line protocol of spec §6.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify tokens (JWS or CWT) or JSON requests, one a line; answer one JSON line each.",
            discussion: """
                Each non-blank input line is a compact token or a JSON request such as {"id": 7, "token": "…", "device": "…", "object": "…", "channel": "…", "command": "…", "at": T}. Only "token" is required; device, object, channel and command are checked against the token's sub, aud, ch and cmd; "at" is the check time for that line (NumericDate or RFC 3339). A token with two dots is a JWS compact token; a token without a dot is a CWT (spec §2b: base64url of a COSE_Sign1 message of strict CBOR, alg and kid in its headers, claims keyed 1 to 7 plus "env", "ch", "cmd", "role"), checked by the same rules and answered with "format":"cwt" added.

                Each answer has "line" and "valid" (and "id" when given). Valid: jti, sub, aud, kid, alg, exp, role. Invalid: "reason" (a code) and "detail" (a sentence); with --audit also "reasons" and "details" for every failed check.

                Reason codes, in check order: malformed_request, malformed_token, unsupported_alg, bad_header, unknown_key, key_alg_mismatch, wrong_environment, wrong_issuer, not_yet_valid, expired, revoked_key, revoked_token, revoked_device, revoked_object, revoked_grant, status_invalid, status_suspended, status_unavailable, wrong_device, wrong_object, channel_not_permitted, command_not_permitted, step_required, bad_signature.

                With --step-policy, a request naming a command must come from a device that has done every security step the policy requires for it (--device-steps), or it is step_required; the detail names the next step to do.

                With --status-lists, a token whose status claim names a list (IETF Token Status List) is checked against that list's generation in force at the line's check time (the greatest iat ≤ t): status_invalid, status_suspended, or status_unavailable when no list for it was issued by then, it expired, or the index is beyond it. A token that names a list when none is given is status_unavailable, unless --skip-status-lists.

                Key, revocation, step-policy, device-steps and status-list files (and directories given for keys or lists) are reloaded in the background when they change (write a new file and rename it into place) and on SIGHUP, and swapped in together as one snapshot; a file that fails to load keeps the previous state in force and says why on stderr. SIGINT/SIGTERM stop reading; every line already read is answered. A summary goes to stderr at the end.

                Exit status: 0 every line answered; 1 with --fail-on-invalid when a token was invalid; 2 usage or configuration error (nothing is read then).
                """
        )

        @Argument(
            help: ArgumentHelp(
                "Input files, read in order (default: standard input; '-' is standard input).", valueName: "file"))
        var files: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "A JWKS key file, or a directory of them (repeatable; kids must be unique across files; optional with --trust-anchors).",
                valueName: "path"))
        var keys: [String] = []

        @Option(name: .long, help: ArgumentHelp("A revocation list, JSON lines (repeatable).", valueName: "file"))
        var revocations: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The security-step policy: one JSON object, command → ordered step names (\"*\": any other command).",
                valueName: "file"))
        var stepPolicy: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Steps devices have done, JSON lines {\"sub\":…,\"aud\":…,\"done\":[…]} (repeatable).",
                valueName: "file"))
        var deviceSteps: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "A Status List Token (spec §4c: JWS statuslist+jwt, or CWT under tag 18), or a directory of them (repeatable); tokens with a status claim are checked against the list in force at their check time.",
                valueName: "path"))
        var statusLists: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Trust anchor certificates (PEM), or a directory of them, optionally for an environment (prod=roots.pem); tokens carrying a chain (x5c, x5chain) are verified with its leaf when it validates to one at the line's time (spec §3b). Repeatable; watched like the key files.",
                valueName: "[env=]path"))
        var trustAnchors: [String] = []

        @Flag(
            name: .long, help: "Leave the status of tokens that name a status list unchecked (counted in the summary).")
        var skipStatusLists = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Largest inflated status list accepted (default 256 MiB); a larger or broken one fails its file.",
                valueName: "bytes"))
        var maxStatusListBytes: Int = 256 << 20

        @Option(name: .long, help: ArgumentHelp("Accept only this environment.", valueName: "env"))
        var env: Environment?

        @Option(name: .long, help: "Require this iss.")
        var issuer: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Check time for lines without \"at\": NumericDate or RFC 3339 (default: now).", valueName: "time"))
        var at: String?

        @Option(name: .long, help: ArgumentHelp("Clock skew allowed on nbf and exp, in seconds.", valueName: "seconds"))
        var leeway: Double = 0

        @Flag(name: .long, help: "Run every check, the signature included, and report every failure.")
        var audit = false

        @Option(name: .long, help: "Verifier threads (default: one per core).")
        var threads: Int?

        @Option(
            name: .long,
            help: ArgumentHelp("Longest accepted line; a longer one is answered malformed_request.", valueName: "bytes")
        )
        var maxLineBytes: Int = 64 * 1024

        @Flag(name: .long, help: "Exit with status 1 when any line was not valid.")
        var failOnInvalid = false

        @Flag(name: .long, help: "Answer each line as soon as it is ready instead of in input order.")
        var unordered = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "json: one JSON answer a line; arrow: an Arrow IPC stream, one row an answer, with the answer's members as columns (line, id, valid, reason, detail, jti, sub, aud, kid, alg, exp, role, format; with --audit also reasons, details).",
                valueName: "format"))
        var outputFormat: AnswerFormat = .json

        @Option(name: .long, help: ArgumentHelp("Signature cache slots (0 turns the cache off).", valueName: "count"))
        var cacheSlots: Int = 1 << 18

        @Option(
            name: .customLong("table-memory"),
            help: ArgumentHelp(
                "Memory for one kind of per-key precomputed table, KIND=BYTES (repeatable; kinds: es256, about 160 KB a key, and ed25519, about 215 KB a key; default 64 MiB each; 0 turns a kind off). Tables are built in the background on each key's first use; keys beyond the memory, and until their table is ready, verify through the library's standard call (EVP_PKEY_verify, crypto_sign_verify_detached).",
                valueName: "kind=bytes"))
        var tableMemory: [String] = []

        /// The earlier spellings of `--table-memory es256=…` and `ed25519=…` (hidden; a warning
        /// says to use `--table-memory`).
        @Option(name: .customLong("es256-table-memory"), help: .hidden)
        var es256TableMemory: Int?

        @Option(name: .customLong("ed25519-table-memory"), help: .hidden)
        var ed25519TableMemory: Int?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "How often revocation files are checked for changes (0: only on SIGHUP).", valueName: "seconds"))
        var reloadInterval: Double = 0.25

        @Flag(name: .long, help: "No summary or progress on stderr.")
        var quiet = false

        @OptionGroup var reporting: VerifyReportingOptions

        func validate() throws {
            if keys.isEmpty && trustAnchors.isEmpty {
                throw ValidationError(
                    "at least one --keys file (or --trust-anchors, for tokens with chains) is required")
            }
            if let threads, threads < 1 || threads > 512 {
                throw ValidationError("--threads must be between 1 and 512")
            }
            if maxLineBytes < 16 { throw ValidationError("--max-line-bytes must be at least 16") }
            if outputFormat == .arrow, maxLineBytes > AnswerColumns.maxLineBytes {
                throw ValidationError(
                    "--output-format arrow answers lines of at most \(AnswerColumns.maxLineBytes) bytes (--max-line-bytes)"
                )
            }
            try TimeOptionRules.validate(duration: reloadInterval, "--reload-interval", positive: false)
            if cacheSlots < 0 { throw ValidationError("--cache-slots must not be negative") }
            _ = try tableMemoryByKind()
            if maxStatusListBytes < 1 { throw ValidationError("--max-status-list-bytes must be positive") }
            if skipStatusLists && !statusLists.isEmpty {
                throw ValidationError("--skip-status-lists and --status-lists contradict each other: give one")
            }
            try TimeOptionRules.validate(duration: leeway, "--leeway", positive: false)
            try reporting.validate()
            try TimeOptionRules.validate(time: at, "--at")
            _ = try FileOptionRules.trustAnchorPaths(trustAnchors)
        }

        /// The table memory of `--table-memory KIND=BYTES` (and its hidden earlier spellings): a
        /// kind given twice is refused, never silently overridden.
        func tableMemoryByKind() throws -> TableMemory {
            let kinds = VerificationOptions.tableKinds.map(\.name)
            var values = tableMemory
            if let es256TableMemory { values.append("es256=\(es256TableMemory)") }
            if let ed25519TableMemory { values.append("ed25519=\(ed25519TableMemory)") }
            var memory = TableMemory()
            var given: Set<String> = []
            for value in values {
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, kinds.contains(parts[0]), let bytes = Int(parts[1]), bytes >= 0 else {
                    throw ValidationError(
                        "--table-memory takes KIND=BYTES with KIND one of \(kinds.joined(separator: ", ")) and BYTES not negative, not \"\(value)\""
                    )
                }
                guard given.insert(parts[0]).inserted else {
                    throw ValidationError("--table-memory: the memory of \(parts[0]) is given twice: give it once")
                }
                memory[kind: parts[0]] = bytes
            }
            return memory
        }

        @Sendable static func printProgress(_ summary: RunSummary, _ seconds: Double) {
            let rate = seconds > 0 ? Int(saturating: Double(summary.answered) / seconds) : 0
            let text =
                "\u{1B}[2K\rtokenverify: \(summary.answered) answered, \(summary.invalid) invalid, \(rate) tokens/s"
            _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        }

        /// The floors `fetch` recorded for the status list folders followed (spec §4c "No step
        /// back"); a bad state file stops start-up naming it.
        static func fetchedFloors(_ paths: [String]) -> StatusListFloors {
            do {
                return StatusListFloors(recorded: try paths.flatMap { try statusListFloors(followedFolder: $0) })
            } catch {
                ConfigurationError(description: "\(error)").exit()
            }
        }

        func run() throws {
            checkInputs()
            reporting.checkFiles()
            let options = VerificationOptions(
                environment: env, issuer: issuer, leeway: leeway, checkTime: at.map(TimeOptionRules.time),
                audit: audit, signatureCacheSlots: cacheSlots, tableMemory: (try? tableMemoryByKind()) ?? TableMemory(),
                skipStatusLists: skipStatusLists)
            if es256TableMemory != nil || ed25519TableMemory != nil {
                printError(
                    "tokenverify: warning: --es256-table-memory and --ed25519-table-memory are deprecated: use --table-memory KIND=BYTES"
                )
            }
            var liveState = LiveStateFiles(
                keys: keys, revocations: revocations, stepPolicy: stepPolicy, deviceSteps: deviceSteps,
                statusLists: statusLists.isEmpty ? nil : statusLists,
                trustAnchors: (try? FileOptionRules.trustAnchorPaths(trustAnchors)) ?? [],
                maxStatusListBytes: maxStatusListBytes, options: options, warn: { printError($0) })
            liveState.statusListFloors = Self.fetchedFloors(statusLists)
            let verifier: Verifier
            let loadStart = DispatchTime.now().uptimeNanoseconds
            // The files as they are before loading: one replaced while loading is reloaded.
            let baseline = LiveStateWatcher.baseline(of: liveState.sources)
            var groupSeconds: [String: Double] = [:]
            do {
                verifier = try liveState.makeVerifier(options: options) { group, seconds in
                    groupSeconds[group] = seconds
                }
            } catch {
                ConfigurationError(description: "\(error)").exit()
            }
            let reports = reporting.start(
                verifier: verifier, sources: liveState.sources,
                startupSeconds: Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e9,
                startupGroupSeconds: groupSeconds)
            let inputs = openInputs()
            ProcessSignals.install()
            let watcher = LiveStateWatcher(
                verifier: verifier, sources: reports.sources, interval: reloadInterval, baseline: baseline,
                log: { printError($0) })

            let showProgress = !quiet && isatty(2) == 1
            var configuration = VerifyPipeline.Configuration(
                threads: threads ?? activeProcessorCount(), maxLineBytes: maxLineBytes, unordered: unordered,
                format: outputFormat)
            if showProgress {
                configuration.progress = Self.printProgress
            }
            configuration.counters = reports.metrics?.counters
            let pipeline = VerifyPipeline(verifier: verifier, configuration: configuration)
            // The metrics writer stops last: its final write sees the reloads of the run.
            let outcome = ServiceGroup(reports.services + [watcher]).run { _ in pipeline.run(inputs: inputs, output: 1)
            }
            reports.finish(outcome, files: liveState, verifier: verifier)
            if showProgress { _ = "\u{1B}[2K\r".withCString { write(2, $0, 5) } }
            if let readError = outcome.readError { printError("tokenverify: reading input: \(readError)") }
            if !quiet && !outcome.outputClosed {
                var line = outcome.summary.line(seconds: outcome.seconds)
                if outcome.interrupted { line += " (stopped by signal)" }
                printError(line)
            }
            if outcome.readError != nil { throw ExitCode(2) }
            if failOnInvalid && outcome.summary.invalid > 0 { throw ExitCode(1) }
        }

        /// Every input is checked before anything is read: a directory, a missing or an unreadable
        /// file stops start-up with the file named.
        private func checkInputs() {
            for file in files where file != "-" {
                var status = stat()
                if stat(file, &status) != 0 {
                    ConfigurationError(description: "input \(file): \(errnoText())").exit()
                }
                if (status.st_mode & S_IFMT) == S_IFDIR {
                    ConfigurationError(description: "input \(file): a directory, not a file of tokens").exit()
                }
                if access(file, R_OK) != 0 {
                    ConfigurationError(
                        description: "input \(file): cannot be read: \(errnoText())"
                    ).exit()
                }
            }
        }

        /// The inputs' descriptors, in order (`-` and no file at all: stdin).
        private func openInputs() -> [Int32] {
            var inputs: [Int32] = []
            for file in files {
                if file == "-" {
                    inputs.append(0)
                    continue
                }
                let descriptor = open(file, O_RDONLY | O_CLOEXEC)
                if descriptor < 0 {
                    ConfigurationError(description: "\(file): \(errnoText())").exit()
                }
                inputs.append(descriptor)
            }
            return inputs.isEmpty ? [0] : inputs
        }
    }
}
