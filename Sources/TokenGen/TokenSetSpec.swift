import TokenTools
import TokenVerifier

/// What share of a generated token set is of each kind (spec §7 `gen`).
public struct TokenSetSpec: Sendable {
    public var count: Int
    public var seed: UInt64
    /// Share of ES256 tokens; the rest are Ed25519.
    public var es256Share: Double = 0.5
    public var expiredShare: Double = 0
    public var revokedShare: Double = 0
    public var tamperedShare: Double = 0
    /// Share of requests whose context (device or command) the token does not grant.
    public var wrongContextShare: Double = 0
    /// Share of lines that repeat the token and context of an earlier line of the same block of
    /// `TokenSetSpec.linesPerChunk` lines (with a new id): repeats come from a bounded window of
    /// recent lines, so no generator ever holds the whole set.
    public var repeatShare: Double = 0
    /// Share of device–object pairs with security steps still `todo` (spec §4b). Above 0, the set
    /// also has `step-policy.json` (`TokenSetSpec.stepPolicy`) and `device-steps.jsonl`, and the
    /// expected verdicts include `step_required` (check 11b).
    public var stepShare: Double = 0
    /// Share of tokens written as CWTs (spec §2b: COSE_Sign1, base64url) instead of JWS, drawn
    /// apart from the other shares, so that a set without CWTs is byte for byte what it was.
    public var cwtShare: Double = 0
    /// Share of tokens with a `status` claim naming their entry in a status list (spec §4c), drawn
    /// apart from the other shares. Above 0, the set also has `status-lists/` (a JWS list for the
    /// JWS tokens, a CWT list for the CWTs, 2 bits an entry, indexed by line) and the expected
    /// verdicts include `status_invalid` and `status_suspended`.
    public var statusShare: Double = 0
    /// Of the tokens with a status claim, the share whose entry is 0x01 INVALID.
    public var statusInvalidShare: Double = 0
    /// Of the tokens with a status claim, the share whose entry is 0x02 SUSPENDED.
    public var statusSuspendedShare: Double = 0
    /// Share of tokens that carry a certificate chain (leaf + intermediate: JWS `x5c`, CWT
    /// `x5chain`) in place of a `kid` (spec §3b), drawn apart from the other shares. Above 0, the
    /// set also has `anchors.pem` (``GenChains``) and its verdicts assume `verify --trust-anchors
    /// int=SET/anchors.pem`.
    public var chainShare: Double = 0
    /// Distinct leaf certificates per algorithm that chained tokens are spread over.
    public var chainLeaves: Int = 256
    /// Whether chained JWS tokens also carry their signing key's `kid`, so that one set is
    /// verified by its chains (with the anchors) and by `kid` (without): tokenbench's `chain`
    /// scenario compares the two on the same bytes.
    public var chainKeyIDs = false
    /// Extra revocation entries that match no token (to make the list large).
    public var revocationPadding: Int = 0
    /// The `alg` of Ed25519 tokens: `Ed25519` (RFC 9864) or `EdDSA` (RFC 8037, what older
    /// libraries such as jwt-kit know).
    public var ed25519Algorithm: SignatureAlgorithm = .ed25519
    /// The check time the expected verdicts assume (tokens are valid around it).
    public var checkTime: Double = 1_800_000_000

    /// Lines generated (and signed) together by one worker; fixed, so that the output does not
    /// depend on the number of threads. Also the window repeated tokens are drawn from.
    public static let linesPerChunk = 4096

    public init(count: Int, seed: UInt64) {
        self.count = count
        self.seed = seed
    }

    /// Shares for a realistic mix: mostly valid, some expired, revoked, tampered and out of context.
    public static func realistic(count: Int, seed: UInt64) -> TokenSetSpec {
        var spec = TokenSetSpec(count: count, seed: seed)
        spec.expiredShare = 0.05
        spec.revokedShare = 0.05
        spec.tamperedShare = 0.03
        spec.wrongContextShare = 0.07
        spec.repeatShare = 0.1
        return spec
    }

    /// Whether `line`'s token is a CWT.
    func isCWT(_ line: Int) -> Bool {
        guard cwtShare > 0 else { return false }
        var random = SplitMix64(seed ^ 0xC0DE_C3A7 ^ UInt64(line) &* 0x94D0_49BB_1331_11EB)
        return random.unit() < cwtShare
    }

    /// The leaf certificate `line`'s token is signed under (an index below `chainLeaves`), or
    /// nil for a token found by `kid`.
    func chainLeaf(_ line: Int) -> Int? {
        guard chainShare > 0, chainLeaves > 0 else { return nil }
        var random = SplitMix64(seed ^ 0xC4A1_0C4A ^ UInt64(line) &* 0xA24B_AED4_963E_E407)
        guard random.unit() < chainShare else { return nil }
        return Int(random.next() % UInt64(chainLeaves))
    }

    /// The status entry of `line`'s token: nil without a status claim, else 0 (VALID), 1 (INVALID)
    /// or 2 (SUSPENDED).
    func statusEntry(_ line: Int) -> UInt8? {
        guard statusShare > 0 else { return nil }
        var random = SplitMix64(seed ^ 0x57A7_0515 ^ UInt64(line) &* 0xBF58_476D_1CE4_E5B9)
        guard random.unit() < statusShare else { return nil }
        let roll = random.unit()
        return roll < statusInvalidShare ? 1 : roll < statusInvalidShare + statusSuspendedShare ? 2 : 0
    }

    /// The URI of the set's status list for tokens of `format`.
    public func statusListURI(_ format: TokenFormat) -> String {
        "https://gen.example/statuslists/\(seed)/\(format.rawValue)"
    }

    /// When the set's status lists were issued: an hour before the check time.
    var statusListIssuedAt: Int64 { Int64(checkTime) - 3600 }

    /// The step policy of sets with `stepShare` above 0: spec §4b's example.
    public static let stepPolicy =
        "{\"unlock\":[\"trustedPhone\",\"deviceActivation\"],\"engine_start\":[\"trustedPhone\",\"deviceActivation\",\"mediumCarKey\"],\"*\":[\"trustedPhone\"]}"

    /// The commands of the generated requests that tokens grant, by index.
    static let commandNames: [StaticString] = ["unlock", "lock", "engine_start"]

    /// Every step of the policy, in the order a device does them.
    static let stepOrder: [StaticString] = ["trustedPhone", "deviceActivation", "mediumCarKey"]

    /// How many of `stepOrder` the device has done for the object (3: all of them): a function
    /// of the pair alone, so every line of the pair agrees.
    func stepsDone(device: Int, object: Int) -> Int {
        var random = SplitMix64(seed ^ 0x57E9_D0E5 ^ UInt64(device) << 20 ^ UInt64(object))
        return random.unit() < stepShare ? Int(random.next() % 3) : 3
    }

    /// Steps the policy requires for a command (index 0 unlock, 1 lock, 2 engine_start): a prefix
    /// of `stepOrder` of this length.
    static func stepsRequired(command: Int) -> Int { [2, 1, 3][command] }

    /// Chunks of `linesPerChunk` lines in the set.
    var chunkCount: Int { (count + Self.linesPerChunk - 1) / Self.linesPerChunk }

    /// The signing keys of the set, derived from the seed.
    public func signingKeys() -> (ed25519: SigningKey, es256: SigningKey) {
        var seeder = SplitMix64(seed)
        func secret() -> [UInt8] { (0..<4).flatMap { _ in withUnsafeBytes(of: seeder.next()) { Array($0) } } }
        let edAlgorithm = ed25519Algorithm.keyType == .ed25519 ? ed25519Algorithm : .ed25519
        let ed = try! SigningKey.derive(
            algorithm: edAlgorithm, keyID: "gen-ed25519", secret: secret(), environment: .integration,
            issuer: "gen-operator")
        let es = try! SigningKey.derive(
            algorithm: .es256, keyID: "gen-es256", secret: secret(), environment: .integration, issuer: "gen-operator")
        return (ed, es)
    }

    /// Appends the revocation entry `index` of the padding (entries that match no token).
    static func appendPaddingRevocation(_ index: Int, to out: inout [UInt8]) {
        switch index % 4 {
        case 0:
            out.append(ascii: "{\"jti\":\"pad-")
            out.append(decimal: index)
            out.append(ascii: "\"}\n")
        case 1:
            out.append(ascii: "{\"sub\":\"pad-phone-")
            out.append(decimal: index)
            out.append(ascii: "\"}\n")
        case 2:
            out.append(ascii: "{\"sub\":\"pad-phone-")
            out.append(decimal: index)
            out.append(ascii: "\",\"aud\":\"pad-car-")
            out.append(decimal: index)
            out.append(ascii: "\"}\n")
        default:
            out.append(ascii: "{\"aud\":\"pad-car-")
            out.append(decimal: index)
            out.append(ascii: "\",\"issued_before\":1700000000}\n")
        }
    }
}

/// SplitMix64: a small, fast, reproducible generator (also used by the tests for seeded data).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(_ seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

extension Array where Element == UInt8 {
    /// Appends the UTF-8 of a literal.
    @inline(__always)
    mutating func append(ascii text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends an integer in decimal.
    mutating func append(decimal value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(decimal: UInt64(value.magnitude))
    }

    /// Appends an unsigned integer in decimal.
    mutating func append(decimal value: UInt64) {
        var magnitude = value
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
        Swift.withUnsafeMutableBytes(of: &digits) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(truncatingIfNeeded: magnitude % 10) + UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude > 0
            append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[index...]))
        }
    }
}
