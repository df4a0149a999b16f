import Dispatch
import TokenVerifier

/// The files of the live state (spec §3, §4, §4b, §4c) and the one loader of them:
/// ``makeVerifier(options:)`` loads them all at start-up; ``sources`` reloads each group alone
/// for the ``LiveStateWatcher``. Both run the same loading and print the same warnings.
package struct LiveStateFiles: Sendable {
    /// JWKS files, or directories standing for their regular files (at least one, unless trust
    /// anchors are given: tokens with chains need no key set).
    package var keys: [String]
    /// Revocation list files.
    package var revocations: [String]
    /// The step policy file.
    package var stepPolicy: String?
    /// Device steps files.
    package var deviceSteps: [String]
    /// Status List Token files, or directories standing for their regular files (nil: none
    /// configured).
    package var statusLists: [String]?
    /// Trust anchor files (PEM), or directories standing for their regular files, each for an
    /// environment or none (spec §3b; empty: no chain a token carries is read).
    package var trustAnchors: [TrustAnchorPath]
    /// The largest inflated status list accepted, in bytes.
    package var maxStatusListBytes: Int
    /// The floors of the status lists at start-up: the `iat`s `fetch` recorded for the folders
    /// followed (spec §4c "No step back").
    package var statusListFloors: StatusListFloors = .none
    /// Where warnings go (a line each).
    package var warn: @Sendable (String) -> Void
    private let statusListFiles: StatusListFiles?

    package init(
        keys: [String], revocations: [String] = [], stepPolicy: String? = nil, deviceSteps: [String] = [],
        statusLists: [String]? = nil, trustAnchors: [TrustAnchorPath] = [], maxStatusListBytes: Int = 256 << 20,
        options: VerificationOptions = VerificationOptions(),
        warn: @escaping @Sendable (String) -> Void
    ) {
        (self.keys, self.trustAnchors) = (keys, trustAnchors)
        self.revocations = revocations
        self.stepPolicy = stepPolicy
        self.deviceSteps = deviceSteps
        self.statusLists = statusLists
        self.maxStatusListBytes = maxStatusListBytes
        self.warn = warn
        statusListFiles = statusLists.map {
            StatusListFiles(paths: $0, maxInflatedBytes: maxStatusListBytes, options: options)
        }
    }

    /// Loads every file and makes the verifier, for start-up; throws the first group's error
    /// (its description is the message to show). `timing` is told each group's load time in
    /// seconds, by its name in ``sources`` ("keys", "revocations", …).
    package func makeVerifier(
        options: VerificationOptions, timing: (_ group: String, _ seconds: Double) -> Void = { _, _ in }
    ) throws -> Verifier {
        func timed<T>(_ group: String, _ load: () throws -> T) rethrows -> T {
            let start = DispatchTime.now().uptimeNanoseconds
            defer { timing(group, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }
            return try load()
        }
        let (keySet, warnings) = try timed("keys") { try KeySet.load(files: StatePaths.expand(keys)) }
        for warning in warnings { warn("tokenverify: warning: \(warning)") }
        if keySet.keys.isEmpty && (trustAnchors.isEmpty || !keys.isEmpty) {
            warn("tokenverify: warning: the key files hold no keys; every token will be unknown_key")
        }
        let list =
            revocations.isEmpty
            ? RevocationList.empty : try timed("revocations") { try loadRevocations() }.update.revocations
        if stepPolicy == nil && !deviceSteps.isEmpty {
            warn("tokenverify: warning: --device-steps without --step-policy: no security steps are checked")
        }
        let policy = stepPolicy == nil ? nil : try timed("step policy") { try loadStepPolicy() }.update.stepPolicy
        let done =
            deviceSteps.isEmpty
            ? DeviceSteps.empty : try timed("device steps") { try loadDeviceSteps() }.update.deviceSteps
        let anchors = trustAnchors.isEmpty ? nil : try timed("trust anchors") { try loadTrustAnchors() }.anchors
        let lists = try statusListFiles.map { files in
            try timed("status lists") { try files.load(keys: keySet, anchors: anchors, strict: true, warn: warn) }
        }
        let verifier = Verifier(
            keys: keySet, revocations: list ?? .empty, steps: SecuritySteps(policy: policy, done: done ?? .empty),
            statusLists: lists, trustAnchors: anchors, statusListFloors: statusListFloors, options: options)
        for notice in verifier.statusListNotices { warn("tokenverify: \(notice)") }
        return verifier
    }

    /// The groups of files, each reloaded alone when it changes.
    package var sources: [LiveStateWatcher.Source] {
        var sources: [LiveStateWatcher.Source] = []
        if !keys.isEmpty || trustAnchors.isEmpty {
            sources.append(
                LiveStateWatcher.Source(name: "keys", kept: "key set", files: keys, load: { _ in try self.loadKeys() }))
        }
        if !revocations.isEmpty {
            sources.append(
                LiveStateWatcher.Source(
                    name: "revocations", kept: "list", files: revocations, load: { _ in try self.loadRevocations() }))
        }
        if let stepPolicy {
            sources.append(
                LiveStateWatcher.Source(
                    name: "step policy", kept: "policy", files: [stepPolicy], load: { _ in try self.loadStepPolicy() }))
        }
        if !deviceSteps.isEmpty {
            sources.append(
                LiveStateWatcher.Source(
                    name: "device steps", kept: "device steps", files: deviceSteps,
                    load: { _ in try self.loadDeviceSteps() }))
        }
        if !trustAnchors.isEmpty {
            sources.append(
                LiveStateWatcher.Source(
                    name: "trust anchors", kept: "anchors", files: trustAnchors.map(\.path),
                    load: { _ in
                        let (anchors, summary) = try self.loadTrustAnchors()
                        return (LiveStateUpdate(trustAnchors: anchors), summary)
                    }))
        }
        // Last: the lists are checked against the key set and anchors this round puts in force.
        if let statusLists, let files = statusListFiles {
            sources.append(
                LiveStateWatcher.Source(
                    name: "status lists", kept: "lists", files: statusLists, reloadsWithKeys: true,
                    reloadsWithAnchors: !trustAnchors.isEmpty,
                    loadWithAnchors: { keys, anchors in
                        let lists = try files.load(keys: keys, anchors: anchors, strict: false, warn: self.warn)
                        return (LiveStateUpdate(statusLists: lists), counted(lists.count, "list", "lists"))
                    }))
        }
        return sources
    }

    private func loadKeys() throws -> (update: LiveStateUpdate, summary: String) {
        let (loaded, warnings) = try KeySet.load(files: StatePaths.expand(keys))
        for warning in warnings { warn("tokenverify: warning: \(warning)") }
        return (LiveStateUpdate(keys: loaded), counted(loaded.keys.count, "key", "keys"))
    }

    private func loadRevocations() throws -> (update: LiveStateUpdate, summary: String) {
        let list = try RevocationList.load(files: revocations)
        return (LiveStateUpdate(revocations: list), counted(list.count, "entry", "entries"))
    }

    private func loadStepPolicy() throws -> (update: LiveStateUpdate, summary: String) {
        let policy = try StepPolicy.load(file: stepPolicy ?? "")
        return (LiveStateUpdate(stepPolicy: policy), counted(policy.commands.count, "command", "commands"))
    }

    private func loadDeviceSteps() throws -> (update: LiveStateUpdate, summary: String) {
        let done = try DeviceSteps.load(files: deviceSteps)
        return (LiveStateUpdate(deviceSteps: done), counted(done.count, "entry", "entries"))
    }

    private func loadTrustAnchors() throws -> (anchors: TrustAnchors, summary: String) {
        let anchors = try TrustAnchorPath.load(trustAnchors)
        return (anchors, counted(anchors.count, "anchor", "anchors"))
    }
}

/// One `--trust-anchors [ENV=]PATH`: a PEM file or a directory of them, and the environment of
/// every key its certificates vouch for (spec §3b).
package struct TrustAnchorPath: Sendable, Equatable {
    package var path: String
    package var environment: Environment?

    package init(path: String, environment: Environment? = nil) {
        self.path = path
        self.environment = environment
    }

    /// The anchors of `paths` (directories expanded into their regular files), as `verify` loads
    /// them; throws a ``TrustAnchorError`` naming the file at fault.
    package static func load(_ paths: [TrustAnchorPath]) throws -> TrustAnchors {
        let files = paths.flatMap { anchor in
            StatePaths.expand([anchor.path]).map { (path: $0, environment: anchor.environment) }
        }
        return try TrustAnchors.load(files)
    }

    /// `ENV=PATH` with ENV an environment's name (`int`, `prod`), else the whole text as a path.
    /// A text whose part before the first `=` looks like a tag (letters, digits, `_` and `-`)
    /// but names no environment is refused, naming the tag: `staging=roots.pem` is a mistake,
    /// not a file of that name (write `./staging=roots.pem` for one).
    package init(parsing argument: String) throws(UnknownEnvironmentTag) {
        guard let equals = argument.firstIndex(of: "=") else {
            self.init(path: argument)
            return
        }
        let tag = String(argument[..<equals])
        if let environment = Environment(rawValue: tag) {
            self.init(path: String(argument[argument.index(after: equals)...]), environment: environment)
        } else if !tag.isEmpty, tag.utf8.allSatisfy(Self.isTagByte) {
            throw UnknownEnvironmentTag(tag: tag)
        } else {
            self.init(path: argument)
        }
    }

    private static func isTagByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x2D
    }

    /// `--trust-anchors TAG=PATH` with a TAG that names no environment.
    package struct UnknownEnvironmentTag: Error, CustomStringConvertible, Sendable {
        package var tag: String
        package var description: String {
            "unknown environment tag \"\(tag)\" (\(Environment.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}
