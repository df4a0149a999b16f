import Dispatch
import TokenVerifier

/// What share of a generated token set is of each kind (SPEC §7 `gen`).
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
    /// Share of lines that repeat an earlier line's token (with a new id).
    public var repeatShare: Double = 0
    /// Extra revocation entries that match no token (to make the list large).
    public var revocationPadding: Int = 0
    /// The `alg` of Ed25519 tokens: `Ed25519` (RFC 9864) or `EdDSA` (RFC 8037, what older
    /// libraries such as jwt-kit know).
    public var ed25519Algorithm: SignatureAlgorithm = .ed25519
    /// The check time the expected verdicts assume (tokens are valid around it).
    public var checkTime: Double = 1_800_000_000

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
}

/// A generated token set: keys, revocations, request lines and the verdict expected for each.
public struct GeneratedTokenSet: Sendable {
    /// The public key set (JWKS text).
    public var keySet: String
    /// The private JWKs that signed the tokens.
    public var privateKeys: [String]
    /// Revocation list lines.
    public var revocations: [String]
    /// The compact tokens, one per request.
    public var tokens: [String]
    /// JSON request lines with context (device, object, channel, command) and an `id`.
    public var requests: [String]
    /// Expected verdict per request: nil for valid, else the reason code.
    public var expected: [Reason?]

    /// `{"line":N,"valid":…,"reason":…}` lines for `expected`.
    public var expectedLines: [String] {
        expected.enumerated().map { index, reason in
            reason.map { "{\"line\":\(index + 1),\"valid\":false,\"reason\":\"\($0.rawValue)\"}" }
                ?? "{\"line\":\(index + 1),\"valid\":true}"
        }
    }
}

/// Makes large, reproducible token sets: the same seed gives the same keys, claims, revocations
/// and verdicts (Ed25519 tokens are byte-identical; ES256 signatures are randomised by OpenSSL,
/// so those tokens differ from run to run while their verdicts do not).
public enum TokenSetGenerator {
    private enum Kind { case valid, expired, revoked, tampered, wrongContext }

    public static func generate(_ spec: TokenSetSpec, threads: Int = activeProcessorCount()) -> GeneratedTokenSet {
        var seeder = SplitMix64(spec.seed)
        func secret() -> [UInt8] { (0..<4).flatMap { _ in withUnsafeBytes(of: seeder.next()) { Array($0) } } }
        let ed = try! SigningKey.derive(algorithm: spec.ed25519Algorithm.keyType == .ed25519 ? spec.ed25519Algorithm : .ed25519, keyID: "gen-ed25519", secret: secret(), environment: .integration, issuer: "gen-operator")
        let es = try! SigningKey.derive(algorithm: .es256, keyID: "gen-es256", secret: secret(), environment: .integration, issuer: "gen-operator")
        let count = spec.count

        var tokens = [String](repeating: "", count: count)
        var requests = [String](repeating: "", count: count)
        var expected = [Reason?](repeating: nil, count: count)
        var revokedJTIs = [String?](repeating: nil, count: count)
        let chunk = 4096
        let chunks = (count + chunk - 1) / chunk
        tokens.withUnsafeMutableBufferPointer { tokenSlots in
            requests.withUnsafeMutableBufferPointer { requestSlots in
                expected.withUnsafeMutableBufferPointer { expectedSlots in
                    revokedJTIs.withUnsafeMutableBufferPointer { revokedSlots in
                        let slots = Slots(tokens: tokenSlots, requests: requestSlots, expected: expectedSlots, revoked: revokedSlots)
                        DispatchQueue.concurrentPerform(iterations: max(1, min(chunks, threads * 4))) { part in
                            var index = part * chunk
                            let stride = max(1, min(chunks, threads * 4)) * chunk
                            while index < count {
                                for line in index..<min(index + chunk, count) {
                                    makeLine(line, spec: spec, ed: ed, es: es, slots: slots)
                                }
                                index += stride
                            }
                        }
                    }
                }
            }
        }
        // Repeats copy an earlier line's token and verdict (done in order so chains resolve).
        if spec.repeatShare > 0 {
            for line in 1..<max(1, count) {
                var random = SplitMix64(spec.seed ^ 0xA5A5_5A5A ^ UInt64(line) &* 0x9E37_79B9_7F4A_7C15)
                guard random.unit() < spec.repeatShare else { continue }
                let source = Int(random.next() % UInt64(line))
                tokens[line] = tokens[source]
                expected[line] = expected[source]
                requests[line] = requests[source].replacingFirstID(with: line + 1)
            }
        }
        var revocations = revokedJTIs.compactMap { $0.map { "{\"jti\":\"\($0)\"}" } }
        revocations.reserveCapacity(revocations.count + spec.revocationPadding)
        for index in 0..<spec.revocationPadding {
            switch index % 4 {
            case 0: revocations.append("{\"jti\":\"pad-\(index)\"}")
            case 1: revocations.append("{\"sub\":\"pad-phone-\(index)\"}")
            case 2: revocations.append("{\"sub\":\"pad-phone-\(index)\",\"aud\":\"pad-car-\(index)\"}")
            default: revocations.append("{\"aud\":\"pad-car-\(index)\",\"issued_before\":1700000000}")
            }
        }
        return GeneratedTokenSet(
            keySet: "{\"keys\":[\(ed.publicJWK),\(es.publicJWK)]}", privateKeys: [ed.privateJWK, es.privateJWK],
            revocations: revocations, tokens: tokens, requests: requests, expected: expected)
    }

    private struct Slots: @unchecked Sendable {
        let tokens: UnsafeMutableBufferPointer<String>
        let requests: UnsafeMutableBufferPointer<String>
        let expected: UnsafeMutableBufferPointer<Reason?>
        let revoked: UnsafeMutableBufferPointer<String?>
    }

    private static func makeLine(_ line: Int, spec: TokenSetSpec, ed: SigningKey, es: SigningKey, slots: Slots) {
        var random = SplitMix64(spec.seed ^ UInt64(line) &* 0xD1B5_4A32_D192_ED03)
        let key = random.unit() < spec.es256Share ? es : ed
        let roll = random.unit()
        var threshold = spec.expiredShare
        let kind: Kind
        if roll < threshold { kind = .expired }
        else if roll < { threshold += spec.revokedShare; return threshold }() { kind = .revoked }
        else if roll < { threshold += spec.tamperedShare; return threshold }() { kind = .tampered }
        else if roll < { threshold += spec.wrongContextShare; return threshold }() { kind = .wrongContext }
        else { kind = .valid }

        let device = "phone-\(random.next() % 100_000)"
        let object = "car-\(random.next() % 20_000)"
        let jti = "gen-\(spec.seed)-\(line)"
        let issuedAt = Int(spec.checkTime) - 86_400 - Int(random.next() % 86_400)
        let expiresAt = kind == .expired ? Int(spec.checkTime) - 1 - Int(random.next() % 3600) : Int(spec.checkTime) + 86_400 * 30
        let claims = "{\"iss\":\"gen-operator\",\"sub\":\"\(device)\",\"aud\":\"\(object)\",\"jti\":\"\(jti)\",\"iat\":\(issuedAt),\"exp\":\(expiresAt),\"env\":\"int\",\"ch\":[\"ble\",\"nfc\",\"uwb\"],\"cmd\":[\"unlock\",\"lock\",\"engine_start\"],\"role\":\"owner\"}"
        var token = key.sign(claims: Array(claims.utf8))
        var command = ["unlock", "lock", "engine_start"][Int(random.next() % 3)]
        var reason: Reason? = nil
        switch kind {
        case .valid: break
        case .expired: reason = .expired
        case .revoked:
            reason = .revokedToken
            slots.revoked[line] = jti
        case .tampered:
            let tampered = claims.replacingOccurrences(of: "\"role\":\"owner\"", with: "\"role\":\"admin\"")
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = Base64URL.encodeString(Array(tampered.utf8))
            token = parts.joined(separator: ".")
            reason = .badSignature
        case .wrongContext:
            command = "horn"
            reason = .commandNotPermitted
        }
        slots.tokens[line] = token
        slots.expected[line] = reason
        slots.requests[line] = "{\"id\":\(line + 1),\"token\":\"\(token)\",\"device\":\"\(device)\",\"object\":\"\(object)\",\"channel\":\"ble\",\"command\":\"\(command)\"}"
    }
}

/// SplitMix64: a small, fast, reproducible generator (also used by the tests for seeded data).
public struct SplitMix64: Sendable {
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

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }

    private func range(of target: String) -> Range<String.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<self.index(index, offsetBy: target.count) }
            index = self.index(after: index)
        }
        return nil
    }

    /// A request line with its leading `{"id":N,` replaced.
    func replacingFirstID(with id: Int) -> String {
        guard hasPrefix("{\"id\":"), let comma = firstIndex(of: ",") else { return self }
        return "{\"id\":\(id)" + self[comma...]
    }
}
