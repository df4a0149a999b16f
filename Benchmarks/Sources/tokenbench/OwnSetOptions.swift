import ArgumentParser
import Foundation
import TokenVerifier

/// `--requests FILE… --keys K… [--revocations R…] [--step-policy P] [--device-steps D…] [--at T]`:
/// a user's own token set, read the way `tokenverify verify` reads it.
struct OwnSetOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .upToNextOption,
        help: ArgumentHelp(
            "Measure your own set: request files (the lines `tokenverify verify` reads) instead of the generated scenarios.",
            valueName: "file"))
    var requests: [String] = []
    @Option(
        name: .long, parsing: .upToNextOption, help: ArgumentHelp("JWKS key files of your own set.", valueName: "file"))
    var keys: [String] = []
    @Option(
        name: .long, parsing: .upToNextOption,
        help: ArgumentHelp("Revocation lists of your own set.", valueName: "file"))
    var revocations: [String] = []
    @Option(name: .long, help: ArgumentHelp("The security-step policy of your own set.", valueName: "file"))
    var stepPolicy: String?
    @Option(
        name: .long, parsing: .upToNextOption,
        help: ArgumentHelp("Device-steps files of your own set.", valueName: "file"))
    var deviceSteps: [String] = []
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Check time of your own set (NumericDate or RFC 3339; default now: fix it, so that runs compare).",
            valueName: "time"))
    var at: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Signature cache slots of your own set's verifier (0 turns the cache off).", valueName: "count"))
    var cacheSlots = 1 << 18
    @Option(name: .long, help: "The scenario name of your own set in the report and the baseline.")
    var setName = "own-set"
    @Flag(name: .long, help: .hidden) var ownSetChild = false

    /// Whether a set of the user's own is measured.
    var isActive: Bool { !requests.isEmpty }

    /// Every file named is checked before any work: a missing, unreadable or directory path
    /// stops the run naming it (a usage error, exit 64).
    func validate() throws {
        guard isActive else {
            if !keys.isEmpty || !revocations.isEmpty || stepPolicy != nil || !deviceSteps.isEmpty || at != nil {
                throw ValidationError(
                    "--keys, --revocations, --step-policy, --device-steps and --at describe your own set: they need --requests FILE"
                )
            }
            return
        }
        if keys.isEmpty { throw ValidationError("--requests needs at least one --keys file") }
        if cacheSlots < 0 { throw ValidationError("--cache-slots must not be negative") }
        if let at, NumericDate.parse(at) == nil {
            throw ValidationError("--at must be a NumericDate (seconds) or an RFC 3339 date-time, not \"\(at)\"")
        }
        let named =
            requests.map { ("requests", $0) } + keys.map { ("keys", $0) } + revocations.map { ("revocations", $0) }
            + (stepPolicy.map { [("step-policy", $0)] } ?? []) + deviceSteps.map { ("device-steps", $0) }
        for (option, path) in named {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("--\(option) \(path): no such file")
            }
            if isDirectory.boolValue { throw ValidationError("--\(option) \(path): a directory, not a file") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ValidationError("--\(option) \(path): cannot be read")
            }
        }
    }

    /// The keys, lists and options as `verify` loads them; a file that fails to load stops the
    /// run naming it (exit 64).
    func load() throws -> OwnSetState {
        do {
            let (keySet, warnings) = try KeySet.load(files: keys)
            for warning in warnings { log("tokenbench: warning: \(warning)") }
            let list = revocations.isEmpty ? RevocationList.empty : try RevocationList.load(files: revocations)
            let steps = SecuritySteps(
                policy: try stepPolicy.map { try StepPolicy.load(file: $0) },
                done: deviceSteps.isEmpty ? .empty : try DeviceSteps.load(files: deviceSteps))
            let options = VerificationOptions(checkTime: at.flatMap(NumericDate.parse), signatureCacheSlots: cacheSlots)
            return OwnSetState(keys: keySet, revocations: list, steps: steps, options: options)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The arguments that describe this set to a child run over `requests` (the instruction count).
    func childArguments(requests: String) -> [String] {
        var arguments = ["--own-set-child", "--requests", requests, "--keys"] + keys
        if !revocations.isEmpty { arguments += ["--revocations"] + revocations }
        if let stepPolicy { arguments += ["--step-policy", stepPolicy] }
        if !deviceSteps.isEmpty { arguments += ["--device-steps"] + deviceSteps }
        if let at { arguments += ["--at", at] }
        return arguments + ["--cache-slots", String(cacheSlots)]
    }
}

/// A user's set, loaded.
struct OwnSetState {
    var keys: KeySet
    var revocations: RevocationList
    var steps: SecuritySteps
    var options: VerificationOptions
}
