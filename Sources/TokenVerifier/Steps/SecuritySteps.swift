/// The query of check 11b (`step_required`, spec §4b): a step policy and a device-steps snapshot,
/// combined once so that a line costs a command lookup, one keyed hash of its device, and per
/// object one keyed hash and two table lookups whose cache misses overlap.
///
/// Immutable; build a new value when either file is reloaded (the policy's step names are
/// translated to the snapshot's step ids here, once).
public struct SecuritySteps: Sendable {
    public let policy: StepPolicy?
    public let done: DeviceSteps
    private let commands: CommandTable
    /// The `"*"` rule, nil when absent or empty.
    private let fallback: StepRequirement?

    /// No policy loaded: no request is checked for steps.
    public static let none = SecuritySteps(policy: nil, done: .empty)

    /// `policy` (nil: none loaded, the check is off) over what `done` records.
    public init(policy: StepPolicy?, done: DeviceSteps) {
        self.policy = policy
        self.done = done
        var rules: [(command: [UInt8], requirement: StepRequirement?)] = []
        var fallback: StepRequirement?
        for rule in policy?.rules ?? [] {
            let requirement = rule.steps.isEmpty ? nil : StepRequirement(steps: rule.steps, done: done)
            if rule.command == StepPolicy.wildcard { fallback = requirement }
            rules.append((rule.command, requirement))
        }
        commands = CommandTable(rules)
        self.fallback = fallback
    }

    /// Whether a policy is loaded, so that requests naming a command are checked.
    public var isActive: Bool { policy != nil }

    // MARK: - The hot path

    /// What `command` (UTF-8) requires: nil when no step is (no policy, an empty rule, or no
    /// rule and no `"*"`).
    @inline(__always)
    func requirement(command: UnsafeBufferPointer<UInt8>) -> StepRequirement? {
        guard policy != nil else { return nil }
        switch commands.lookup(command) {
        case .listed(let requirement): return requirement
        case .notListed: return fallback
        }
    }

    /// The part of `device`'s lookups shared by every object of a line (the key of its
    /// `aud`-less entries), computed once per line.
    @inline(__always)
    func progress(_ requirement: StepRequirement, device: UnsafeBufferPointer<UInt8>) -> DeviceProgress {
        DeviceProgress(deviceKey: requirement.needsLookup ? done.deviceKey(device) : nil)
    }

    /// The first step of `requirement`, in the policy's order, that `device` has not done for
    /// `object`; nil when all are done. Costs one keyed hash and two table lookups (overlapped).
    @inline(__always)
    func missingStep(
        _ requirement: StepRequirement, _ progress: DeviceProgress,
        device: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>
    ) -> String? {
        // No device has done any of the steps: the first one is missing.
        guard requirement.needsLookup else { return requirement.steps[0] }
        let mask = done.mask(deviceKey: progress.deviceKey, objectKey: done.objectKey(device, object))
        if requirement.simple, requirement.mask & ~mask == 0 { return nil }
        for (index, id) in requirement.ids.enumerated() {
            let isDone =
                id < 0
                ? false
                : id < 64
                    ? mask & (1 << UInt64(id)) != 0
                    : done.hasOverflowStep(Int(id), device: device, object: object)
            if !isDone { return requirement.steps[index] }
        }
        return nil
    }

    /// Check 11b's query for one line: nil when every step `command` needs is done by `device`
    /// for each of `objects` (the request's object, or every `aud` of the token), else the first
    /// step not done, in the policy's order, for the first object lacking one.
    func firstMissing(
        command: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>,
        objects: [UnsafeBufferPointer<UInt8>]
    ) -> MissingStep? {
        guard let requirement = requirement(command: command) else { return nil }
        let progress = progress(requirement, device: device)
        for (index, object) in objects.enumerated() {
            if let step = missingStep(requirement, progress, device: device, object: object) {
                return MissingStep(step: step, objectIndex: index)
            }
        }
        return nil
    }

    /// ``firstMissing(command:device:objects:)`` for Strings.
    public func firstMissing(command: String, device: String, objects: [String]) -> MissingStep? {
        let bytes = objects.map { Array($0.utf8) }
        return withUTF8(of: command) { command in
            withUTF8(of: device) { device in
                withBuffers(bytes[...], []) { firstMissing(command: command, device: device, objects: $0) }
            }
        }
    }

    private func withBuffers<R>(
        _ rest: ArraySlice<[UInt8]>, _ done: [UnsafeBufferPointer<UInt8>],
        _ body: ([UnsafeBufferPointer<UInt8>]) -> R
    ) -> R {
        guard let first = rest.first else { return body(done) }
        return first.withUnsafeBufferPointer { withBuffers(rest.dropFirst(), done + [$0], body) }
    }
}

/// The step check 11b found missing.
public struct MissingStep: Sendable, Equatable {
    /// The first step not done, in the policy's order: the next one the device must do.
    public var step: String
    /// Which of the objects queried lacks it (the first one that lacks any).
    public var objectIndex: Int
}

/// What a line's lookups share across its objects: the key of the device's `aud`-less entries.
struct DeviceProgress {
    var deviceKey: KeyedHash.Digest?
}

/// One command's rule translated to a device-steps snapshot's ids.
struct StepRequirement: Sendable {
    /// The step names in the policy's order (for the detail).
    let steps: [String]
    /// Their ids in the snapshot, -1 for a step no device has done.
    let ids: [Int32]
    /// The bits of all ids, when ``simple``.
    let mask: UInt64
    /// Whether every id is in 0–63, so that the masks decide.
    let simple: Bool
    /// Whether a lookup can show anything done (false when no step is known to the snapshot).
    let needsLookup: Bool

    init(steps: [[UInt8]], done: DeviceSteps) {
        self.steps = steps.map { String(decoding: $0, as: UTF8.self) }
        ids = steps.map { step in Int32(step.withUnsafeBufferPointer { done.stepID($0) } ?? -1) }
        simple = ids.allSatisfy { (0..<64).contains($0) }
        mask = simple ? ids.reduce(0) { $0 | 1 << UInt64($1) } : 0
        needsLookup = ids.contains { $0 >= 0 }
    }
}
