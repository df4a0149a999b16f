import TokenVerifier

/// What a certificate says apart from its keys: subject, serial, validity, CA status and names
/// (spec §3b; `tokenverify certificate`). ``validate()`` checks it before anything is signed.
public struct CertificateRequest: Sendable {
    /// The subject's attributes in order, as ``parseSubject(_:)`` reads `CN=…,O=…`.
    public var subject: [(field: String, value: String)]
    /// The serial number, big-endian and positive: not zero, at most 20 octets as DER encodes it
    /// (RFC 5280 §4.1.2.2).
    public var serial: [UInt8]
    /// Validity, in seconds since the epoch; `notAfter` is not before `notBefore`.
    public var notBefore: Int64
    public var notAfter: Int64
    /// A CA (basicConstraints CA, keyUsage keyCertSign and cRLSign) or a leaf (keyUsage digitalSignature).
    public var isCA: Bool
    /// A CA's pathLenConstraint.
    public var pathLength: Int?
    /// subjectAltName URIs and dNSNames.
    public var uris: [String]
    public var dnsNames: [String]

    public init(
        subject: [(field: String, value: String)], serial: [UInt8], notBefore: Int64, notAfter: Int64,
        isCA: Bool, pathLength: Int? = nil, uris: [String] = [], dnsNames: [String] = []
    ) {
        self.subject = subject
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.pathLength = pathLength
        self.uris = uris
        self.dnsNames = dnsNames
    }

    /// The latest time a certificate can state: 9999-12-31T23:59:59Z.
    public static let latestTime: Int64 = 253_402_300_799

    /// Why the request cannot be issued, or nil.
    public func problem() -> CertificateProblem? {
        if subject.isEmpty { return CertificateProblem("the subject needs at least one attribute, as CN=name") }
        let serialOctets = serial.drop { $0 == 0 }
        if serialOctets.isEmpty || serialOctets.count + (serialOctets.first! >= 0x80 ? 1 : 0) > 20 {
            return CertificateProblem("the serial number must be a positive integer of at most 20 bytes")
        }
        for time in [notBefore, notAfter] where time < 0 || time > Self.latestTime {
            return CertificateProblem("validity times must lie between 1970 and the end of 9999, not \(time)")
        }
        if notAfter < notBefore {
            return CertificateProblem("not-after (\(notAfter)) is before not-before (\(notBefore))")
        }
        if let pathLength {
            if !isCA { return CertificateProblem("a path length is for a CA (--ca); a leaf has none") }
            if pathLength < 0 || pathLength > 64 { return CertificateProblem("the path length must be 0 to 64") }
        }
        for uri in uris where !Self.isURI(uri) {
            return CertificateProblem("\"\(uri)\" is not an absolute URI (scheme:…, printable ASCII, no spaces)")
        }
        for name in dnsNames where !Self.isDNSName(name) {
            return CertificateProblem(
                "\"\(name)\" is not a DNS name (letters, digits and hyphens, labels between dots)")
        }
        return nil
    }

    /// An absolute URI (RFC 3986: a scheme, then ":"), printable ASCII without spaces.
    static func isURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[0].isLetter, bytes[..<colon].allSatisfy({ $0.isLetter || $0.isDigit || "+-.".utf8.contains($0) })
        else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// A DNS name (RFC 1034 preferred syntax; a leading `*.` label allowed), at most 253 characters.
    static func isDNSName(_ text: String) -> Bool {
        var labels = text.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.first == "*" { labels.removeFirst() }
        guard text.utf8.count <= 253 else { return false }
        return labels.allSatisfy { label in
            let bytes = Array(label.utf8)
            return !bytes.isEmpty && bytes.count <= 63 && bytes.first != UInt8(ascii: "-")
                && bytes.last != UInt8(ascii: "-")
                && bytes.allSatisfy { $0.isLetter || $0.isDigit || $0 == UInt8(ascii: "-") }
        }
    }

    /// The attributes of a subject written `CN=name,O=org` (a comma inside a value is written
    /// `\,`, a backslash `\\`); blanks around names and values are dropped. Which attribute
    /// names exist is OpenSSL's to say when the certificate is built.
    public static func parseSubject(_ text: String) throws(CertificateProblem) -> [(field: String, value: String)] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { throw CertificateProblem("the subject \"\(text)\" ends in a lone backslash") }
        parts.append(current)
        var attributes: [(field: String, value: String)] = []
        for part in parts {
            guard let equals = part.firstIndex(of: "=") else {
                throw CertificateProblem("\"\(part)\" in the subject is not NAME=value (as CN=lock-server-1)")
            }
            let field = String(part[..<equals]).trimmed
            let value = String(part[part.index(after: equals)...]).trimmed
            guard !field.isEmpty, !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw CertificateProblem(
                    "\"\(part)\" in the subject needs a name and a value without control characters")
            }
            attributes.append((field, value))
        }
        return attributes
    }

    /// A serial number written in decimal, or in hexadecimal after `0x`: its big-endian bytes.
    public static func parseSerial(_ text: String) -> [UInt8]? {
        let hex = text.hasPrefix("0x") || text.hasPrefix("0X")
        let digits = hex ? Array(text.utf8.dropFirst(2)) : Array(text.utf8)
        guard !digits.isEmpty, digits.count <= (hex ? 40 : 48) else { return nil }
        var bytes: [UInt8] = []  // little-endian while it is built
        for digit in digits {
            guard let value = hexValue(digit), hex || value < 10 else { return nil }
            var carry = Int(value)
            for index in bytes.indices {
                let product = Int(bytes[index]) * (hex ? 16 : 10) + carry
                bytes[index] = UInt8(product & 0xFF)
                carry = product >> 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        return Array(bytes.reversed())
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A random serial number of 16 bytes, positive, its first byte not zero.
    public static func randomSerial() -> [UInt8] {
        var bytes = Sodium.randomBytes(16)
        bytes[0] = bytes[0] & 0x7F | 0x40
        return bytes
    }
}

extension UInt8 {
    fileprivate var isLetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
}

extension String {
    fileprivate var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
