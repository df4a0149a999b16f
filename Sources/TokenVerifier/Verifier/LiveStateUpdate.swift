/// New parts of a verifier's live state, put in force together by ``Verifier/apply(_:)``;
/// a part left nil stays as it is.
public struct LiveStateUpdate: Sendable {
    public var keys: KeySet?
    public var revocations: RevocationList?
    public var stepPolicy: StepPolicy?
    public var deviceSteps: DeviceSteps?
    public var statusLists: StatusListSet?
    /// The certificates chains are validated to (spec §3b).
    public var trustAnchors: TrustAnchors?

    public init(
        keys: KeySet? = nil, revocations: RevocationList? = nil, stepPolicy: StepPolicy? = nil,
        deviceSteps: DeviceSteps? = nil,
        statusLists: StatusListSet? = nil, trustAnchors: TrustAnchors? = nil
    ) {
        self.keys = keys
        self.revocations = revocations
        self.stepPolicy = stepPolicy
        self.deviceSteps = deviceSteps
        self.statusLists = statusLists
        self.trustAnchors = trustAnchors
    }

    /// Both updates, `other`'s parts winning where both have one.
    public func merging(_ other: LiveStateUpdate) -> LiveStateUpdate {
        LiveStateUpdate(
            keys: other.keys ?? keys, revocations: other.revocations ?? revocations,
            stepPolicy: other.stepPolicy ?? stepPolicy, deviceSteps: other.deviceSteps ?? deviceSteps,
            statusLists: other.statusLists ?? statusLists, trustAnchors: other.trustAnchors ?? trustAnchors)
    }
}
