import Dispatch
import Foundation
import TokenGen
import TokenTools
import TokenVerifier

/// The chains of the chain-memory scenario, made as they are needed: a self-signed Ed25519 root
/// (the anchor) and an intermediate under it (path length 0), made once; then for chain `index`
/// a leaf key of its own (Ed25519 for an even index, P-256 for an odd one, derived from the seed
/// and the index), a leaf certificate for it under the intermediate (dNSName ``issuer``, a year
/// on each side of ``checkTime``), and one token signed by that leaf with leaf + intermediate in
/// its header (JWS `x5c` when `index / 2` is even, else CWT `x5chain`). No chain is kept: every
/// token brings a chain, and a leaf key, that no other token has.
struct ChainMemoryIssuer: Sendable {
    /// The tokens' `iss`, the leaves' dNSName.
    static let issuer = "chain-memory"
    /// How long every certificate is valid on each side of the check time: a year.
    static let validityMargin: Int64 = 365 * 86_400

    let root: Certificate
    let intermediate: Certificate
    private let intermediateKey: SigningKey
    private let seed: UInt64
    let checkTime: Int64

    init(seed: UInt64, checkTime: Int64) throws {
        self.seed = seed
        self.checkTime = checkTime
        let rootKey = try Self.key(.ed25519, seed: seed, index: -1)
        intermediateKey = try Self.key(.ed25519, seed: seed, index: -2)
        var rootRequest = Self.request("chain-memory root", serial: [1], checkTime: checkTime, isCA: true)
        rootRequest.pathLength = 1
        root = try CertificateIssuer.issue(
            rootRequest, subjectKey: CertificateKey(jwk: Array(rootKey.privateJWK.utf8)), signer: .selfSigned
        ).certificate
        intermediate = try CertificateIssuer.issue(
            Self.request("chain-memory intermediate", serial: [2], checkTime: checkTime, isCA: true),
            subjectKey: CertificateKey(jwk: Array(intermediateKey.privateJWK.utf8)),
            signer: .issuer(root, rootKey)
        ).certificate
    }

    /// The token of chain `index`, signed by a new leaf key under a new leaf certificate.
    func token(_ index: Int) throws -> String {
        let leafKey = try Self.key(index % 2 == 0 ? .ed25519 : .es256, seed: seed, index: index)
        let serial = [0x10] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(index) >> ($0 * 8)) }
        let leaf = try CertificateIssuer.issue(
            Self.request("chain-memory leaf \(index)", serial: serial, checkTime: checkTime, isCA: false),
            subjectKey: CertificateKey(jwk: Array(leafKey.privateJWK.utf8)),
            signer: .issuer(intermediate, intermediateKey)
        ).certificate
        let chain = try TokenChain([leaf, intermediate], signingKey: leafKey)
        let claims = Array(
            """
            {"iss":"\(Self.issuer)","sub":"phone-\(index)","aud":"car-\(index % 97)","jti":"cm-\(index)",\
            "iat":\(checkTime - 3600),"exp":\(checkTime + 3600),"env":"int","ch":["ble"],"cmd":["unlock"],"role":"owner"}
            """.utf8)
        if (index / 2) % 2 == 0 {
            return leafKey.sign(header: chain.jwsHeader(algorithm: leafKey.algorithm, type: "JWT"), claims: claims)
        }
        return try CWTSigner(key: leafKey, chain: chain).sign(claims: claims)
    }

    /// The requests of chains `range`, made on `threads` threads (each a contiguous share), in
    /// order; the first error, if any, is thrown.
    func requests(_ range: Range<Int>, threads: Int) throws -> [VerificationRequest] {
        let shares = max(1, min(threads, range.count))
        let made = LockedShares(count: shares)
        DispatchQueue.concurrentPerform(iterations: shares) { share in
            let lower = range.lowerBound + range.count * share / shares
            let upper = range.lowerBound + range.count * (share + 1) / shares
            do {
                made.put(share, try (lower..<upper).map { VerificationRequest(token: try token($0)) })
            } catch {
                made.fail(error)
            }
        }
        return try made.joined()
    }

    /// A key of its own for chain `index` (negative: the root and the intermediate).
    private static func key(_ algorithm: SignatureAlgorithm, seed: UInt64, index: Int) throws -> SigningKey {
        var seeder = SplitMix64(seed ^ 0xC4A1_4E40_0000_0000 ^ UInt64(bitPattern: Int64(index)) &* 0x9E37_79B9)
        let secret = (0..<4).flatMap { _ in withUnsafeBytes(of: seeder.next()) { Array($0) } }
        return try SigningKey.derive(algorithm: algorithm, keyID: "chain-memory-\(index)", secret: secret)
    }

    private static func request(
        _ subject: String, serial: [UInt8], checkTime: Int64, isCA: Bool
    ) -> CertificateRequest {
        CertificateRequest(
            subject: [("CN", subject), ("O", "tokenbench chain-memory")], serial: serial,
            notBefore: checkTime - validityMargin, notAfter: checkTime + validityMargin, isCA: isCA,
            pathLength: isCA ? 0 : nil, dnsNames: isCA ? [] : [issuer])
    }
}

/// The threads' shares of one batch of requests, and the first error.
private final class LockedShares: @unchecked Sendable {
    private let lock = NSLock()
    private var shares: [[VerificationRequest]]
    private var error: (any Error)?

    init(count: Int) { shares = Array(repeating: [], count: count) }

    func put(_ share: Int, _ requests: [VerificationRequest]) {
        lock.withLock { shares[share] = requests }
    }

    func fail(_ error: any Error) {
        lock.withLock { self.error = self.error ?? error }
    }

    func joined() throws -> [VerificationRequest] {
        try lock.withLock {
            if let error { throw error }
            return shares.flatMap { $0 }
        }
    }
}
