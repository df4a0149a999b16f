import CTokenX509

/// A decoded X.509 certificate (OpenSSL's, behind CTokenX509) and the fields the chain checks and
/// the summaries read. Either owned (made from DER here) or borrowed from a validation result.
package struct X509Certificate: ~Copyable {
    let handle: UnsafeRawPointer
    private let owned: Bool

    /// Decodes exactly `der` as one certificate; nil when the bytes are not one.
    package init?(der: [UInt8]) {
        guard let pointer = der.withUnsafeBufferPointer({ tv_x509_cert_new($0.baseAddress, $0.count) }) else {
            return nil
        }
        handle = UnsafeRawPointer(pointer)
        owned = true
    }

    /// A certificate borrowed from a validation result, valid while the result lives.
    init(borrowing handle: UnsafeRawPointer) {
        self.handle = handle
        owned = false
    }

    deinit {
        if owned { tv_x509_cert_free(UnsafeMutableRawPointer(mutating: handle)) }
    }

    var der: [UInt8] {
        let length = tv_x509_cert_der(handle, nil, 0)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let written = bytes.withUnsafeMutableBufferPointer { tv_x509_cert_der(handle, $0.baseAddress, $0.count) }
        return written == length ? bytes : []
    }

    package var subject: String { Self.name(handle, tv_x509_cert_subject) }
    package var issuer: String { Self.name(handle, tv_x509_cert_issuer) }

    /// notBefore and notAfter in seconds since 1970; nil when OpenSSL cannot read them.
    package var validity: (notBefore: Int64, notAfter: Int64)? {
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        return tv_x509_cert_validity(handle, &notBefore, &notAfter) == 1 ? (notBefore, notAfter) : nil
    }

    /// The subjectAltName URIs and dNSNames, in the certificate's order; an entry holding a byte
    /// other than printable ASCII is left out.
    package var alternativeNames: (uris: [String], dnsNames: [String]) {
        var uris: [String] = []
        var dnsNames: [String] = []
        let count = tv_x509_cert_san_count(handle)
        var buffer = [CChar](repeating: 0, count: 1024)
        for index in 0..<max(0, count) {
            var kind: Int32 = 0
            var length = buffer.withUnsafeMutableBufferPointer {
                tv_x509_cert_san(handle, index, &kind, $0.baseAddress, $0.count)
            }
            if length > buffer.count {
                buffer = [CChar](repeating: 0, count: length)
                length = buffer.withUnsafeMutableBufferPointer {
                    tv_x509_cert_san(handle, index, &kind, $0.baseAddress, $0.count)
                }
            }
            guard length >= 0, length <= buffer.count else { continue }
            let bytes = buffer[0..<length].map { UInt8(bitPattern: $0) }
            // IA5String names of printable ASCII only: another byte could not be compared exactly.
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            if kind == Int32(TV_X509_SAN_URI) { uris.append(text) }
            if kind == Int32(TV_X509_SAN_DNS) { dnsNames.append(text) }
        }
        return (uris, dnsNames)
    }

    /// basicConstraints: whether a CA, and its pathLenConstraint when one is given.
    package var authority: (isCA: Bool, pathLength: Int?) {
        var pathLength = -1
        let isCA = tv_x509_cert_is_ca(handle, &pathLength) == 1
        return (isCA, pathLength >= 0 ? pathLength : nil)
    }

    /// keyUsage: nil when absent, else whether digitalSignature is set.
    var digitalSignature: Bool? {
        switch tv_x509_cert_digital_signature(handle) {
        case -1: return nil
        case 1: return true
        default: return false
        }
    }

    /// The subject key in words: `Ed25519`, `P-256`, `P-384`, `RSA 2048`, …
    package var keyDescription: String { key.description }

    /// The subject public key: a key tokens may be signed with, or a description of another.
    var key: (leaf: LeafKey?, description: String) {
        var bits: Int32 = 0
        var out = [UInt8](repeating: 0, count: 64)
        let kind = out.withUnsafeMutableBufferPointer { tv_x509_cert_key(handle, &bits, $0.baseAddress) }
        switch Int(kind) {
        case Int(TV_X509_KEY_ED25519): return (.ed25519(Array(out[0..<32])), "Ed25519")
        case Int(TV_X509_KEY_P256): return (.p256(x: Array(out[0..<32]), y: Array(out[32..<64])), "P-256")
        case Int(TV_X509_KEY_RSA): return (nil, "RSA \(bits)")
        case Int(TV_X509_KEY_EC_OTHER): return (nil, bits == 384 ? "P-384" : bits == 521 ? "P-521" : "EC \(bits)")
        case Int(TV_X509_KEY_ED448): return (nil, "Ed448")
        default: return (nil, "unsupported key")
        }
    }

    private static func name(
        _ handle: UnsafeRawPointer, _ read: (UnsafeRawPointer?, UnsafeMutablePointer<CChar>?, Int) -> Int
    ) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        var length = buffer.withUnsafeMutableBufferPointer { read(handle, $0.baseAddress, $0.count) }
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            length = buffer.withUnsafeMutableBufferPointer { read(handle, $0.baseAddress, $0.count) }
        }
        guard length >= 0 else { return "?" }
        return String(decoding: buffer[0..<min(length, buffer.count - 1)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// SHA-256 of `bytes` (OpenSSL's): a certificate's thumbprint (`x5t#S256`), a key's
/// (`spki#S256`), a status list's entries, the bytes `fetch` wrote.
package func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    bytes.withUnsafeBufferPointer { input in
        digest.withUnsafeMutableBufferPointer { tv_x509_sha256(input.baseAddress, input.count, $0.baseAddress) }
    }
    return digest
}

/// `bytes` as lowercase hexadecimal digits (a SHA-256 digest as `fetch`'s state file records it).
package func hexadecimal(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}
