/// One token to check, with the optional request context of spec §6.
public struct VerificationRequest: Sendable {
    /// The compact token.
    public var token: String
    /// What the request asks for, checked against the token's grant.
    public var context: RequestContext

    public init(
        token: String, device: String? = nil, object: String? = nil, channel: String? = nil,
        command: String? = nil, checkTime: Double? = nil
    ) {
        self.token = token
        self.context = RequestContext(
            device: device, object: object, channel: channel, command: command, checkTime: checkTime)
    }
}

/// The request context (spec §6): what the context checks compare against, and the check time.
public struct RequestContext: Sendable {
    /// Checked against `sub` when given.
    public var device: String?
    /// Checked against `aud` when given.
    public var object: String?
    /// Checked against `ch` when given.
    public var channel: String?
    /// Checked against `cmd` when given.
    public var command: String?
    /// The check time (NumericDate) for this request; defaults to the verifier's.
    public var checkTime: Double?

    public init(
        device: String? = nil, object: String? = nil, channel: String? = nil, command: String? = nil,
        checkTime: Double? = nil
    ) {
        self.device = device
        self.object = object
        self.channel = channel
        self.command = command
        self.checkTime = checkTime
    }
}

/// The request context as bytes borrowed from the request: the form the checks read. Made only
/// inside a `with…` call that keeps the bytes alive, and never kept beyond it.
package struct ContextBytes {
    var device: UnsafeBufferPointer<UInt8>?
    var object: UnsafeBufferPointer<UInt8>?
    var channel: UnsafeBufferPointer<UInt8>?
    var command: UnsafeBufferPointer<UInt8>?
    var checkTime: Double?

    package init(
        device: UnsafeBufferPointer<UInt8>? = nil, object: UnsafeBufferPointer<UInt8>? = nil,
        channel: UnsafeBufferPointer<UInt8>? = nil, command: UnsafeBufferPointer<UInt8>? = nil, checkTime: Double? = nil
    ) {
        self.device = device
        self.object = object
        self.channel = channel
        self.command = command
        self.checkTime = checkTime
    }
}

extension RequestContext {
    /// Calls `body` with this context as bytes.
    func withBytes<R>(_ body: (ContextBytes) -> R) -> R {
        var joined: [UInt8] = []
        var ranges: [Range<Int>?] = []
        for value in [device, object, channel, command] {
            guard let value else {
                ranges.append(nil)
                continue
            }
            let start = joined.count
            joined += value.utf8
            ranges.append(start..<joined.count)
        }
        return joined.withUnsafeBufferPointer { buffer in
            func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
                ranges[index].map { UnsafeBufferPointer(rebasing: buffer[$0]) }
            }
            return body(
                ContextBytes(
                    device: bytes(0), object: bytes(1), channel: bytes(2), command: bytes(3), checkTime: checkTime))
        }
    }
}
