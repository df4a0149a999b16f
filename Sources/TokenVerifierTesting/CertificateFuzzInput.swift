/// How the certificate fuzz harness (FuzzCertificate) and the replay of its corpus read an input:
/// 8 bytes, a Double's bit pattern (little-endian), the time to validate at; 1 byte whose lowest
/// bit says where the certificate goes (0: as the leaf, 1: as the intermediate of a fixed good
/// chain); the rest, the certificate's bytes.
public struct CertificateFuzzInput: Sendable {
    public let time: Double
    public let asIntermediate: Bool
    public let certificate: [UInt8]

    public init?(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count > 9 else { return nil }
        var pattern: UInt64 = 0
        for index in (0..<8).reversed() { pattern = pattern << 8 | UInt64(bytes[index]) }
        time = Double(bitPattern: pattern)
        asIntermediate = bytes[8] & 1 == 1
        certificate = Array(bytes[9...])
    }

    /// The chain to validate: the certificate in its place of `good` (leaf, intermediate).
    public func chain(replacing good: [[UInt8]]) -> [[UInt8]] {
        asIntermediate ? [good[0], certificate] : [certificate, good[1]]
    }
}
