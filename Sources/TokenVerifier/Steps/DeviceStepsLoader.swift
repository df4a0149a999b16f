import TokenFormats

extension DeviceSteps {
    /// Loads device-steps files (JSON lines, spec §4b) into one snapshot. Each line is
    /// `{"sub":S,"aud":A,"done":[step,…]}` with `aud` optional; blank lines are skipped. An
    /// unknown member, a wrong type, a missing `sub` or `done`, an empty step name or any JSON
    /// fault stops loading with the file name and line number. A step listed twice, an empty
    /// `done` and a step no policy requires are allowed.
    public static func load(files: [String]) throws(SecurityStepsError) -> DeviceSteps {
        // Two streaming passes: count the lines to size the table, then parse. The files are
        // never held whole in memory.
        var expected = 0
        for file in files {
            try forEachStepLine(ofFile: file, what: "device-steps file") { (_, _) throws(SecurityStepsError) in
                expected += 1
            }
        }
        var builder = Builder(expectedCount: expected)
        for file in files {
            try forEachStepLine(ofFile: file, what: "device-steps file") { (line, number) throws(SecurityStepsError) in
                try builder.addLine(line, number: number, file: file)
            }
        }
        return DeviceSteps(builder: builder)
    }

    /// Parses device-steps lines held in memory; `file` names them in errors.
    public static func parse(
        _ text: some Collection<UInt8>, file: String = "<memory>"
    ) throws(SecurityStepsError) -> DeviceSteps {
        let bytes = Array(text)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(SecurityStepsError) in
            var lines = 1
            var start = 0
            while let newline = firstIndex(of: 0x0A, in: buffer, from: start) {
                lines += 1
                start = newline + 1
            }
            var builder = Builder(expectedCount: lines)
            try forEachLine(in: buffer) { (line, number) throws(SecurityStepsError) in
                try builder.addLine(line, number: number, file: file)
            }
            return DeviceSteps(builder: builder)
        }
    }

    /// Collects entries for a new snapshot.
    struct Builder {
        let hasher = KeyedHash()
        let table: StepTable
        var names = StepNames()
        var overflow = Set<OverflowKey>()
        var hasDeviceWide = false
        var hasPerObject = false
        var count = 0
        /// Scratch for one entry's step ids ≥ 64.
        private var overflowIDs: [UInt32] = []

        init(expectedCount: Int) {
            table = StepTable(expectedCount: expectedCount)
        }

        /// Adds one line's entry (blank lines are skipped).
        mutating func addLine(_ raw: UnsafeBufferPointer<UInt8>, number: Int, file: String) throws(SecurityStepsError) {
            let line = trimmingBlanks(raw)
            if line.isEmpty { return }
            do throws(JSONError) {
                try addEntry(line)
            } catch {
                throw SecurityStepsError(file: file, line: number, message: error.description)
            }
        }

        /// Adds an entry given as values.
        mutating func add(_ entry: DeviceStepEntry) throws(JSONError) {
            var mask: UInt64 = 0
            overflowIDs.removeAll(keepingCapacity: true)
            for step in entry.done {
                guard !step.isEmpty else { throw JSONError("\"done\" must hold non-empty step name strings", at: 0) }
                note(withUTF8(of: step) { names.intern($0) }, into: &mask)
            }
            let digest = withUTF8(of: entry.sub) { device in
                guard let aud = entry.aud else { return DeviceSteps.digest(device: device, object: nil, hasher) }
                return withUTF8(of: aud) { DeviceSteps.digest(device: device, object: $0, hasher) }
            }
            insert(digest, mask: mask, perObject: entry.aud != nil)
        }

        /// Parses one entry: `sub` and `done` required, `aud` optional, nothing else.
        private mutating func addEntry(_ line: UnsafeBufferPointer<UInt8>) throws(JSONError) {
            var reader = JSONReader(line)
            guard reader.peekKind() == .object else {
                throw JSONError("a device-steps entry must be a JSON object", at: 0)
            }
            var sub: (content: Range<Int>, hasEscapes: Bool)?
            var aud: (content: Range<Int>, hasEscapes: Bool)?
            var sawDone = false
            var mask: UInt64 = 0
            overflowIDs.removeAll(keepingCapacity: true)
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                if name.equals("sub") {
                    guard reader.peekKind() == .string else {
                        throw JSONError("\"sub\" must be a string", at: reader.position)
                    }
                    sub = try reader.readStringRange()
                } else if name.equals("aud") {
                    guard reader.peekKind() == .string else {
                        throw JSONError("\"aud\" must be a string", at: reader.position)
                    }
                    aud = try reader.readStringRange()
                } else if name.equals("done") {
                    sawDone = true
                    try readDone(&reader, into: &mask)
                } else {
                    throw reader.unknownMember(name, allowed: "sub, aud, done")
                }
            }
            try reader.finish()
            guard let sub else { throw JSONError("missing \"sub\" (the device)", at: 0) }
            guard sawDone else { throw JSONError("missing \"done\" (the steps done)", at: 0) }
            let hasher = hasher
            let digest = reader.withStringBytes(sub.content, hasEscapes: sub.hasEscapes) { device in
                guard let aud else { return DeviceSteps.digest(device: device, object: nil, hasher) }
                return reader.withStringBytes(aud.content, hasEscapes: aud.hasEscapes) {
                    DeviceSteps.digest(device: device, object: $0, hasher)
                }
            }
            insert(digest, mask: mask, perObject: aud != nil)
        }

        /// Reads `done`: an array of non-empty step name strings, interned into `mask` / `overflowIDs`.
        private mutating func readDone(_ reader: inout JSONReader, into mask: inout UInt64) throws(JSONError) {
            func invalid(_ reader: JSONReader) -> JSONError {
                JSONError("\"done\" must be an array of non-empty step name strings", at: reader.position)
            }
            guard reader.peekKind() == .array else { throw invalid(reader) }
            try reader.readArray { (reader: inout JSONReader) throws(JSONError) in
                guard reader.peekKind() == .string else { throw invalid(reader) }
                let scanned = try reader.readStringRange()
                if scanned.content.isEmpty { throw invalid(reader) }
                note(
                    reader.withStringBytes(scanned.content, hasEscapes: scanned.hasEscapes) { names.intern($0) },
                    into: &mask)
            }
        }

        @inline(__always)
        private mutating func note(_ id: Int, into mask: inout UInt64) {
            if id < 64 { mask |= 1 << UInt64(id) } else { overflowIDs.append(UInt32(id)) }
        }

        private mutating func insert(_ digest: KeyedHash.Digest, mask: UInt64, perObject: Bool) {
            table.add(digest, mask: mask)
            for id in overflowIDs { overflow.insert(OverflowKey(digest: digest, id: id)) }
            if perObject { hasPerObject = true } else { hasDeviceWide = true }
            count += 1
        }
    }
}
