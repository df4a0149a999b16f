import TokenFormats

extension RevocationList {
    /// Loads revocation files (JSON lines, spec §4) into one snapshot. Blank lines are skipped;
    /// the first malformed entry stops loading with the file name and line number.
    public static func load(files: [String]) throws(RevocationListError) -> RevocationList {
        // Two streaming passes: count the lines to size the table exactly, then parse. The
        // files are never held whole in memory.
        var expected = 0
        for file in files {
            try forEachLine(ofFile: file, readError: { cannotRead(file, $0) }) { (_, _) throws(RevocationListError) in
                expected += 1
            }
        }
        var builder = Builder(expectedCount: expected)
        for file in files {
            try forEachLine(ofFile: file, readError: { cannotRead(file, $0) }) {
                (line, number) throws(RevocationListError) in
                try parseLine(line, number: number, file: file, into: &builder)
            }
        }
        return RevocationList(builder: builder)
    }

    /// Parses revocation lines from memory (for tests and tools).
    public static func parse(
        _ text: some Collection<UInt8>, file: String = "<memory>"
    ) throws(RevocationListError) -> RevocationList {
        let bytes = Array(text)
        var builder = Builder(expectedCount: 0)
        try parse(bytes, file: file, into: &builder)
        return RevocationList(builder: builder)
    }

    private static func parse(_ bytes: [UInt8], file: String, into builder: inout Builder) throws(RevocationListError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(RevocationListError) in
            try forEachLine(in: buffer) { (line, number) throws(RevocationListError) in
                try parseLine(line, number: number, file: file, into: &builder)
            }
        }
    }

    private static func cannotRead(_ file: String, _ reason: String) -> RevocationListError {
        RevocationListError(file: file, line: nil, message: "cannot read revocation file: \(reason)")
    }

    /// Adds one line's entry (blank lines are skipped).
    private static func parseLine(
        _ raw: UnsafeBufferPointer<UInt8>, number: Int, file: String, into builder: inout Builder
    ) throws(RevocationListError) {
        let line = trimmingBlanks(raw)
        if line.isEmpty { return }
        do throws(JSONError) {
            builder.append(try parseEntry(line))
        } catch {
            throw RevocationListError(file: file, line: number, message: error.description)
        }
    }

    /// Parses one entry: exactly one selector, optional `issued_before` and `since`
    /// (NumericDate, or an RFC 3339 string), nothing else.
    static func parseEntry(_ line: UnsafeBufferPointer<UInt8>) throws(JSONError) -> RevocationEntry {
        var jti: String?
        var sub: String?
        var aud: String?
        var kid: String?
        var thumbprint: String?
        var keyThumbprint: String?
        var issuedBefore: Double?
        var since: Double?
        var reader = JSONReader(line)
        func string(_ reader: inout JSONReader, _ name: String) throws(JSONError) -> String {
            try reader.readString(member: "\"\(name)\"")
        }
        func time(_ reader: inout JSONReader, _ name: String) throws(JSONError) -> Double {
            try reader.readNumericDate(member: "\"\(name)\"", allowRFC3339: true)
        }
        guard reader.peekKind() == .object else { throw JSONError("a revocation entry must be a JSON object", at: 0) }
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            if name.equals("jti") {
                jti = try string(&reader, "jti")
            } else if name.equals("sub") {
                sub = try string(&reader, "sub")
            } else if name.equals("aud") {
                aud = try string(&reader, "aud")
            } else if name.equals("kid") {
                kid = try string(&reader, "kid")
            } else if name.equals("x5t#S256") {
                thumbprint = try string(&reader, "x5t#S256")
            } else if name.equals("spki#S256") {
                keyThumbprint = try string(&reader, "spki#S256")
            } else if name.equals("issued_before") {
                issuedBefore = try time(&reader, "issued_before")
            } else if name.equals("since") {
                since = try time(&reader, "since")
            } else {
                throw reader.unknownMember(
                    name, allowed: "jti, sub, aud, kid, x5t#S256, spki#S256, issued_before, since")
            }
        }
        try reader.finish()
        let selector: RevocationEntry.Selector
        let selectors = "one of jti, sub, aud, sub+aud, kid, x5t#S256, spki#S256"
        if thumbprint != nil || keyThumbprint != nil {
            guard jti == nil, sub == nil, aud == nil, kid == nil, thumbprint == nil || keyThumbprint == nil else {
                throw JSONError("more than one selector (\(selectors))", at: 0)
            }
            if let thumbprint {
                try checkThumbprint(thumbprint, "x5t#S256", of: "a certificate")
                return RevocationEntry(.certificate(thumbprint), issuedBefore: issuedBefore, since: since)
            }
            try checkThumbprint(keyThumbprint!, "spki#S256", of: "a key's SubjectPublicKeyInfo")
            return RevocationEntry(.keyThumbprint(keyThumbprint!), issuedBefore: issuedBefore, since: since)
        }
        switch (jti, sub, aud, kid) {
        case (let jti?, nil, nil, nil): selector = .token(jti)
        case (nil, let sub?, nil, nil): selector = .device(sub)
        case (nil, nil, let aud?, nil): selector = .object(aud)
        case (nil, let sub?, let aud?, nil): selector = .grant(device: sub, object: aud)
        case (nil, nil, nil, let kid?): selector = .key(kid)
        case (nil, nil, nil, nil): throw JSONError("no selector (\(selectors))", at: 0)
        default: throw JSONError("more than one selector (\(selectors))", at: 0)
        }
        return RevocationEntry(selector, issuedBefore: issuedBefore, since: since)
    }

    /// A thumbprint selector is the base64url of a SHA-256 digest: 43 canonical characters.
    private static func checkThumbprint(_ text: String, _ name: String, of what: String) throws(JSONError) {
        guard text.utf8.count == 43, let bytes = Base64URL.decode(Array(text.utf8)), bytes.count == 32 else {
            throw JSONError("\(name) must be the base64url SHA-256 of \(what) (43 characters)", at: 0)
        }
    }
}
