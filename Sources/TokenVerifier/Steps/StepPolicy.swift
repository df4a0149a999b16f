/// The operator's step policy (spec §4b, `--step-policy FILE`): for each command, the security
/// steps a device must have done for the object, in the order they are done.
///
/// The file is one JSON object, command → ordered array of step names; `"*"` is the rule for any
/// command not listed. Commands and step names are compared by their UTF-8 bytes after JSON
/// unescaping (no Unicode equivalence). Choices where spec §4b is silent:
/// - An **empty array** means the command needs no step. It is a rule of its own, so
///   `{"lock":[],"*":["trustedPhone"]}` exempts `lock` from the `"*"` rule.
/// - A command not listed, with no `"*"` rule, needs no step.
/// - A **step name listed twice** in one array is refused (the order would be ambiguous), and so
///   is an empty step name; a duplicate command is refused by the strict JSON reader.
public struct StepPolicy: Sendable {
    /// The rules in file order: command bytes, then its step names' bytes in order.
    let rules: [(command: [UInt8], steps: [[UInt8]])]

    /// The policy with no rule: nothing is required.
    public static let empty = StepPolicy(validated: [])

    init(validated rules: [(command: [UInt8], steps: [[UInt8]])]) {
        self.rules = rules
    }

    /// A policy from rules given in memory (for tools and tests), checked like a file.
    public init(rules: [(command: String, steps: [String])], file: String = "<memory>") throws(SecurityStepsError) {
        var checked: [(command: [UInt8], steps: [[UInt8]])] = []
        for rule in rules {
            let command = Array(rule.command.utf8)
            if checked.contains(where: { $0.command == command }) {
                throw SecurityStepsError(file: file, line: nil, message: "duplicate member \"\(rule.command)\"")
            }
            var steps: [[UInt8]] = []
            for step in rule.steps {
                if let problem = Self.problem(adding: Array(step.utf8), to: steps, command: command) {
                    throw SecurityStepsError(file: file, line: nil, message: problem)
                }
                steps.append(Array(step.utf8))
            }
            checked.append((command, steps))
        }
        self.init(validated: checked)
    }

    /// The commands listed, in file order (`"*"` included when present).
    public var commands: [String] { rules.map { String(decoding: $0.command, as: UTF8.self) } }

    /// The steps `command` needs, in order: its own rule, else the `"*"` rule, else none.
    public func steps(for command: String) -> [String] {
        let bytes = Array(command.utf8)
        let rule = rules.first { $0.command == bytes } ?? rules.first { $0.command == Self.wildcard }
        return rule?.steps.map { String(decoding: $0, as: UTF8.self) } ?? []
    }

    static let wildcard: [UInt8] = [UInt8(ascii: "*")]

    /// Why `step` cannot follow `steps` in `command`'s rule, or nil.
    static func problem(adding step: [UInt8], to steps: [[UInt8]], command: [UInt8]) -> String? {
        let name = "command \"\(String(decoding: command, as: UTF8.self))\""
        if step.isEmpty { return "\(name): a step name must be a non-empty string" }
        if steps.contains(step) {
            return "\(name): step \"\(String(decoding: step, as: UTF8.self))\" is listed twice"
        }
        return nil
    }

    // MARK: - Loading

    /// Loads a step policy file. Refuses, naming the file and line: anything but one JSON object,
    /// a command mapped to anything but an array of non-empty strings, a duplicate command, a
    /// step listed twice for one command, and any JSON fault (bad UTF-8, trailing bytes, …).
    public static func load(file: String) throws(SecurityStepsError) -> StepPolicy {
        let bytes: [UInt8]
        do throws(FileReadError) {
            bytes = try readFileBytes(file, limit: FileLimit.stepPolicy)
        } catch {
            throw SecurityStepsError(file: file, line: nil, message: "cannot read step policy: \(error.reason)")
        }
        return try parse(bytes, file: file)
    }

    /// Parses a step policy held in memory; `file` names it in errors.
    public static func parse(
        _ text: some Collection<UInt8>, file: String = "<memory>"
    ) throws(SecurityStepsError) -> StepPolicy {
        let bytes = Array(text)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(SecurityStepsError) in
            do throws(JSONError) {
                return StepPolicy(validated: try parseRules(buffer))
            } catch {
                throw SecurityStepsError(
                    file: file, line: lineNumber(ofOffset: error.offset, in: buffer), message: error.description)
            }
        }
    }

    private static func parseRules(
        _ buffer: UnsafeBufferPointer<UInt8>
    ) throws(JSONError) -> [(command: [UInt8], steps: [[UInt8]])] {
        var reader = JSONReader(buffer)
        guard reader.peekKind() == .object else {
            throw JSONError(
                "a step policy must be one JSON object (command → array of step names)", at: reader.position)
        }
        var rules: [(command: [UInt8], steps: [[UInt8]])] = []
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            let command = name.byteArray
            func invalid(_ reader: JSONReader) -> JSONError {
                JSONError(
                    "command \"\(name.string)\" must map to an array of non-empty step name strings",
                    at: reader.position)
            }
            guard reader.peekKind() == .array else { throw invalid(reader) }
            var steps: [[UInt8]] = []
            try reader.readArray { (reader: inout JSONReader) throws(JSONError) in
                guard reader.peekKind() == .string else { throw invalid(reader) }
                let offset = reader.position
                let scanned = try reader.readStringRange()
                let step =
                    scanned.hasEscapes ? reader.unescapedBytes(scanned.content) : Array(reader.bytes[scanned.content])
                if let problem = problem(adding: step, to: steps, command: command) {
                    throw JSONError(problem, at: offset)
                }
                steps.append(step)
            }
            rules.append((command, steps))
        }
        try reader.finish()
        return rules
    }
}
