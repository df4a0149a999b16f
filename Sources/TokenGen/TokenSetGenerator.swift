import TokenVerifier

/// A generated token set held in memory: keys, revocations, request lines and the verdict
/// expected for each. For small sets (tests); large sets are streamed with `TokenSetFiles`.
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
    /// With a chain share: the trust anchor (PEM) the chained tokens validate to, for the
    /// environment `int`.
    public var anchors: String? = nil

    /// `{"line":N,"valid":…,"reason":…}` lines for `expected`.
    public var expectedLines: [String] {
        expected.enumerated().map { index, reason in
            reason.map { "{\"line\":\(index + 1),\"valid\":false,\"reason\":\"\($0.rawValue)\"}" }
                ?? "{\"line\":\(index + 1),\"valid\":true}"
        }
    }
}

/// Makes reproducible token sets: the same seed gives the same keys, claims, tokens (Ed25519 and
/// ES256, whose nonces follow RFC 6979), revocations and verdicts, whatever the number of threads.
public enum TokenSetGenerator {
    /// The whole set in memory, made by the same chunked generator as `TokenSetFiles` (without
    /// security steps: `stepShare` must be 0).
    public static func generate(_ spec: TokenSetSpec, threads: Int = activeProcessorCount()) -> GeneratedTokenSet {
        precondition(spec.stepShare == 0, "in-memory sets have no security steps; write the set with TokenSetFiles")
        let keys = spec.signingKeys()
        var set = GeneratedTokenSet(
            keySet: "{\"keys\":[\(keys.ed25519.publicJWK),\(keys.es256.publicJWK)]}",
            privateKeys: [keys.ed25519.privateJWK, keys.es256.privateJWK],
            revocations: [], tokens: [], requests: [], expected: [])
        set.tokens.reserveCapacity(spec.count)
        set.requests.reserveCapacity(spec.count)
        set.expected.reserveCapacity(spec.count)
        let chains = spec.chainShare > 0 ? try! GenChains(spec, keys: keys) : nil
        set.anchors = chains?.anchorsPEM
        _ = OrderedChunks.run(spec, keys: keys, chains: chains, threads: threads) { (chunk) -> Bool in
            set.tokens += lines(chunk.tokens)
            set.requests += lines(chunk.requests)
            set.revocations += lines(chunk.revocations)
            set.expected += chunk.reasons
            return true
        }
        var padding: [UInt8] = []
        for index in 0..<spec.revocationPadding { TokenSetSpec.appendPaddingRevocation(index, to: &padding) }
        set.revocations += lines(padding)
        return set
    }

    private static func lines(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }
}
