import ArgumentParser
import Foundation
import LiveState
import TokenConcurrency
import TokenFetch
import TokenMetrics
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

extension TokenVerify {
    /// `tokenverify fetch`: key sets and Status List Tokens from their publishers, over HTTPS.
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download key sets and Status List Tokens over HTTPS into the folders verify follows.",
            discussion: """
                Each URL becomes one file, named from the URL: key sets in DIR/keys, status lists in \
                DIR/status-lists, which `verify --keys DIR/keys --status-lists DIR/status-lists` follows. A \
                download is written to a dotfile in the same folder, checked as verify checks it (a key set by \
                verify's key rules; a status list against the key set in DIR/keys, its sub equal to the URL) and \
                renamed into place only when it passes: a failed, truncated or forged download leaves the \
                previous file as it was, and stderr names the URL and why.

                No rollback: a status list older than the one in place (or as old with other entries), \
                expired, or issued more than --leeway seconds in the future is refused, so that a stale \
                mirror or a replayed response never un-revokes a token. Validators with a control character \
                are neither kept nor sent, and go only to the URL that gave them; nothing is written through \
                a symbolic link; files are created with the umask.

                One issuer per URL, no key brought back: a status list of another issuer than the list \
                first written for its URL is refused (directly or through a redirect); the iat recorded in \
                DIR/.fetch-state.json stays the floor when a list's file is removed; a 304 keeps a file only \
                while it holds the bytes fetch wrote (else it is fetched in full); a key set that brings back \
                a kid an earlier key set of its URL dropped is refused, unless --readmit-kid names it. A \
                state file that does not parse stops fetch (exit 2).

                Requests are conditional (If-None-Match, If-Modified-Since; the validators are kept in \
                DIR/.fetch-state.json) and follow at most 5 redirects, each to an https URL. Trusted: the \
                system's certificates and those of --ca-file.

                Exit status: 0 when every URL was fetched or unchanged, 1 when one failed or was refused (the others are \
                still written), 2 for a usage error. With --watch it runs until SIGINT or SIGTERM (exit 0).

                Examples:
                  tokenverify fetch --keys https://op.example/jwks --status-lists https://op.example/sl/7 --out state
                  tokenverify fetch --keys https://op.example/jwks --out state --watch --interval 300
                """
        )

        @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Key set (JWKS) URLs.", valueName: "url"))
        var keys: [String] = []

        @Option(
            name: .customLong("status-lists"), parsing: .upToNextOption,
            help: ArgumentHelp("Status List Token URLs.", valueName: "url"))
        var statusLists: [String] = []

        @Option(name: .long, help: ArgumentHelp("The output directory (made when missing).", valueName: "dir"))
        var out: String

        @Option(
            name: .customLong("ca-file"),
            help: ArgumentHelp(
                "PEM certificates trusted beside the system's (a private CA).", valueName: "pem"))
        var caFile: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Keep running: fetch each URL again when it is due (SIGHUP: all of them now), until SIGINT or SIGTERM.")
        )
        var watch = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --watch: seconds between fetches of a key set.",
                valueName: "seconds"))
        var interval: Double = 300

        @Option(
            name: .customLong("min-interval"),
            help: ArgumentHelp(
                "With --watch: the shortest wait before a status list is fetched again (its ttl is raised to it).",
                valueName: "seconds"))
        var minInterval: Double = 60

        @Option(
            name: .customLong("max-interval"),
            help: ArgumentHelp(
                "With --watch: the longest wait before a status list is fetched again (its ttl is cut to it; "
                    + "also the wait for a list without ttl).",
                valueName: "seconds"))
        var maxInterval: Double = 3600

        @Option(name: .long, help: ArgumentHelp("Seconds one URL may take, redirects included.", valueName: "seconds"))
        var timeout: Double = 30

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The most bytes a status list may inflate to (as verify's option of the same name).", valueName: "bytes"
            ))
        var maxStatusListBytes: Int = 256 << 20

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Seconds a status list's iat may lie in the future before the list is refused.", valueName: "seconds"))
        var leeway: Double = 60

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Trust anchor certificates (PEM), or a directory of them, optionally for an environment (prod=roots.pem), as verify takes them: a status list carrying a chain (x5c, x5chain) is checked by it. Repeatable; read once at start.",
                valueName: "[env=]path"))
        var trustAnchors: [String] = []

        @Option(
            name: .customLong("readmit-kid"),
            help: ArgumentHelp(
                "A kid a key set may bring back although an earlier key set of its URL dropped it (refused otherwise). "
                    + "Repeatable; for this run, until a key set holding it is written.",
                valueName: "kid"))
        var readmitKid: [String] = []

        /// With --watch: `--metrics-file`, `--metrics-interval`.
        @OptionGroup var metricsOptions: MetricsFileOptions

        func validate() throws {
            if keys.isEmpty && statusLists.isEmpty {
                throw ValidationError("name at least one URL (--keys or --status-lists)")
            }
            for (name, value) in [
                ("--interval", interval), ("--min-interval", minInterval),
                ("--max-interval", maxInterval), ("--timeout", timeout),
            ] {
                try TimeOptionRules.validate(duration: value, name, positive: true)
            }
            try TimeOptionRules.validate(duration: leeway, "--leeway", positive: false)
            _ = try FileOptionRules.trustAnchorPaths(trustAnchors)
            if let caFile {
                do {
                    _ = try readFileBytes(caFile, limit: FileLimit.keyFile)
                } catch {
                    throw ValidationError("--ca-file \(caFile): cannot be read: \(error.reason)")
                }
            }
            if minInterval > maxInterval { throw ValidationError("--min-interval must not exceed --max-interval") }
            if maxStatusListBytes < 1 { throw ValidationError("--max-status-list-bytes must be positive") }
            if out.isEmpty { throw ValidationError("--out must name a directory") }
            if readmitKid.contains(where: \.isEmpty) { throw ValidationError("--readmit-kid must name a kid") }
            if !readmitKid.isEmpty && keys.isEmpty { throw ValidationError("--readmit-kid needs --keys") }
            try MetricsOptionRules.validate(file: metricsOptions.metricsFile, interval: metricsOptions.metricsInterval)
            if metricsOptions.metricsFile != nil && !watch { throw ValidationError("--metrics-file needs --watch") }
        }

        func run() throws {
            var targets: [FetchTarget] = []
            do {
                for (kind, urls) in [(FetchTarget.Kind.keys, keys), (.statusList, statusLists)] {
                    for url in urls {
                        let target = try FetchTarget(kind: kind, url: url)
                        if !targets.contains(target) { targets.append(target) }
                    }
                }
            } catch {
                ConfigurationError(description: error.description).exit()
            }
            do {
                try metricsOptions.metricsFile.map { try AtomicFile(path: $0).checkWritable(option: "--metrics-file") }
            } catch {
                ConfigurationError(description: "\(error)").exit()
            }
            let anchors: TrustAnchors?
            do {
                anchors =
                    trustAnchors.isEmpty
                    ? nil : try TrustAnchorPath.load(FileOptionRules.trustAnchorPaths(trustAnchors))
            } catch {
                ConfigurationError(description: "\(error)").exit()
            }
            let fetcher: Fetcher
            do {
                fetcher = try Fetcher(
                    configuration: FetchConfiguration(
                        directory: out, caFile: caFile, timeout: timeout,
                        statusListLoader: standardStatusListLoader(
                            maxInflatedBytes: maxStatusListBytes, anchors: anchors),
                        leeway: leeway, readmitKeyIDs: Set(readmitKid)))
            } catch {
                ConfigurationError(description: error.description).exit()
            }
            ProcessSignals.install(reloadOnHangUp: watch)
            if watch {
                let schedule = WatchSchedule(interval: interval, minInterval: minInterval, maxInterval: maxInterval)
                let metrics = FetchMetrics(targets: targets)
                let publisher = metricsOptions.metricsFile.map { path in
                    MetricsPublisher(
                        file: AtomicFile(path: path),
                        interval: metricsOptions.metricsInterval ?? MetricsOptionRules.defaultInterval,
                        render: { metrics.render() }, log: { printError($0) })
                }
                let watch = FetchWatch(
                    fetcher: fetcher, targets: targets, schedule: schedule,
                    report: { report in
                        metrics.record(report, now: Date().timeIntervalSince1970)
                        if case .unchanged = report.outcome { return }
                        print(report, fetcher)
                    },
                    scheduled: { metrics.scheduled($0, at: $1) })
                ServiceGroup(publisher.map { [$0] } ?? []).run(watch)
                return
            }
            var failed = false
            for report in fetcher.fetch(targets) {
                if report.outcome == .stopped {
                    printError("tokenverify: fetch stopped by a signal")
                    throw ExitCode(130)
                }
                if report.outcome.isFailure { failed = true }
                print(report, fetcher)
            }
            if failed { throw ExitCode(1) }
        }

        private func print(_ report: FetchReport, _ fetcher: Fetcher) {
            for warning in fetcher.takeWarnings() { printError("tokenverify: warning: \(warning)") }
            printError("tokenverify: \(report.line)")
        }
    }
}
