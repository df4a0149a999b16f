internal import CTokenSigning
import TokenVerifier

/// Why a certificate cannot be issued or a chain cannot be used, in one sentence.
public struct CertificateProblem: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// One X.509 certificate as OpenSSL reads it (`tv_certificate_read`): its DER, subject name,
/// public key and CA status. For the tools (`certificate`, `sign --chain`); the verifier's chain
/// validation is its own.
public struct Certificate: Sendable {
    /// The certificate's DER bytes.
    public let der: [UInt8]
    /// The subject name as text (`CN=…,O=…`).
    public let subject: String
    /// The subject public key's type; nil for a key that is neither Ed25519 nor P-256.
    public let keyType: KeyType?
    /// The subject public key: 32 bytes (Ed25519) or x‖y (P-256, 64 bytes); empty for another type.
    public let publicKey: [UInt8]
    /// Whether it is a CA: basicConstraints CA true, and keyCertSign when it has a keyUsage.
    public let isCA: Bool
    /// A CA's pathLenConstraint, if any.
    public let pathLength: Int?

    /// Reads one DER certificate; nothing may follow it.
    public init(der: [UInt8]) throws(CertificateProblem) {
        var key = [UInt8](repeating: 0, count: 64)
        var ca: Int32 = -2
        var subject = [CChar](repeating: 0, count: 1024)
        let kind = tv_certificate_read(der, der.count, &key, &ca, &subject, subject.count)
        guard kind >= 0 else { throw CertificateProblem("not a DER X.509 certificate") }
        self.der = der
        self.subject = String(decoding: subject.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch kind {
        case 1: (keyType, publicKey) = (.ed25519, Array(key[0..<32]))
        case 2: (keyType, publicKey) = (.p256, key)
        default: (keyType, publicKey) = (nil, [])
        }
        isCA = ca != -2
        pathLength = ca >= 0 ? Int(ca) : nil
    }

    /// The certificates of a PEM file, in the file's order: every PEM block must be a
    /// `CERTIFICATE`, and there must be at least one.
    public static func read(pem: [UInt8]) throws(CertificateProblem) -> [Certificate] {
        let blocks: [(label: String, der: [UInt8])]
        do {
            blocks = try PEM.blocks(pem)
        } catch {
            throw CertificateProblem(error.message)
        }
        guard !blocks.isEmpty else { throw CertificateProblem("no PEM certificate (-----BEGIN CERTIFICATE-----)") }
        var certificates: [Certificate] = []
        for (position, block) in blocks.enumerated() {
            guard block.label == "CERTIFICATE" else {
                throw CertificateProblem(
                    "PEM block \(position + 1) is a \"\(block.label)\", not a CERTIFICATE")
            }
            do {
                certificates.append(try Certificate(der: block.der))
            } catch {
                throw CertificateProblem("PEM block \(position + 1): \(error.description)")
            }
        }
        return certificates
    }

    /// The certificate as PEM (RFC 7468): base64 in lines of 64 characters, ending in a newline.
    public var pem: String {
        let text = StandardBase64.encode(der)
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var start = text.startIndex
        while start < text.endIndex {
            let end = text.index(start, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[start..<end]))
            start = end
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether the certificate's public key is `key`'s.
    public func holds(_ key: SigningKey) -> Bool {
        let own = key.publicKeyMaterial
        return keyType == own.type && publicKey == own.publicKey
    }

    /// What the certificate is, for messages: its subject and key type.
    var shown: String {
        "\"\(subject)\" (\(keyType?.rawValue ?? "a key neither Ed25519 nor P-256"))"
    }
}

extension SigningKey {
    /// The public key: its type and bytes (32 for Ed25519, x‖y for P-256).
    var publicKeyMaterial: (type: KeyType, publicKey: [UInt8]) {
        switch material {
        case .ed25519(_, _, let publicKey): (.ed25519, publicKey)
        case .p256(let key): (.p256, key.x + key.y)
        }
    }
}

/// Standard base64 (RFC 4648 §4, with padding), as PEM and a JWS `x5c` (RFC 7515 §4.1.6) hold DER.
package enum StandardBase64 {
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = Base64URL.encode(bytes).map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
        return String(decoding: text, as: UTF8.self)
    }
}
