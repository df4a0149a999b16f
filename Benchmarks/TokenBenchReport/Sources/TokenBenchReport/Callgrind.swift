import Foundation

/// Reads a callgrind output file (`callgrind.out.*`) into instructions per object file, and per
/// function within each object.
///
/// Only self cost is summed: a cost line right after `calls=` is the inclusive cost of that
/// call and is skipped (it is already counted where the callee's own lines are). Names may be
/// compressed (`ob=(3) /lib/libsodium.so` the first time, `ob=(3)` afterwards).
public struct CallgrindProfile: Sendable {
    /// Instructions (the first event, `Ir`) per object file.
    public var instructionsByObject: [String: UInt64] = [:]
    /// Instructions per (object file, function name).
    public var instructionsByFunction: [FunctionKey: UInt64] = [:]

    /// A function in an object file.
    public struct FunctionKey: Hashable, Sendable {
        public var object: String
        public var function: String
    }
    /// The file's own `totals:` or `summary:` line, when present.
    public var declaredTotal: UInt64?

    public var total: UInt64 { instructionsByObject.values.reduce(0, +) }

    /// Instructions in objects whose file name matches one of `names` (e.g. "libsodium").
    public func instructions(inObjectsNamed names: [String]) -> UInt64 {
        instructionsByObject.filter { object, _ in
            let file = object.split(separator: "/").last.map(String.init) ?? object
            return names.contains { file.hasPrefix($0) }
        }.values.reduce(0, +)
    }

    /// Instructions in functions whose name starts with one of `prefixes`, in objects whose file
    /// name matches none of `excluded` (so that they are not counted twice with those).
    public func instructions(inFunctionsPrefixed prefixes: [String], outsideObjectsNamed excluded: [String]) -> UInt64 {
        instructionsByFunction.filter { key, _ in
            let file = key.object.split(separator: "/").last.map(String.init) ?? key.object
            return prefixes.contains { key.function.hasPrefix($0) } && !excluded.contains { file.hasPrefix($0) }
        }.values.reduce(0, +)
    }

    public init(parsing text: String) throws {
        var objectNames: [String: String] = [:]
        var functionNames: [String: String] = [:]
        var currentObject = "???"
        var currentFunction = "???"
        var skipNextCost = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                if skipNextCost {
                    skipNextCost = false
                    continue
                }
                let fields = line.split(separator: " ")
                guard fields.count >= 2 else { continue }
                guard let cost = UInt64(fields[1]) else { throw ParseError.badCostLine(String(line)) }
                instructionsByObject[currentObject, default: 0] += cost
                instructionsByFunction[FunctionKey(object: currentObject, function: currentFunction), default: 0] +=
                    cost
            } else if line.hasPrefix("ob=") {
                currentObject = Self.resolve(line.dropFirst(3), &objectNames)
            } else if line.hasPrefix("fn=") {
                currentFunction = Self.resolve(line.dropFirst(3), &functionNames)
            } else if line.hasPrefix("cfn=") {
                _ = Self.resolve(line.dropFirst(4), &functionNames)  // defines a name; the caller stays in `fn`
            } else if line.hasPrefix("cob=") {
                _ = Self.resolve(line.dropFirst(4), &objectNames)  // defines a name; the caller stays in `ob`
            } else if line.hasPrefix("calls=") {
                skipNextCost = true
            } else if line.hasPrefix("totals:") || line.hasPrefix("summary:") {
                let value = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ").first
                declaredTotal = value.flatMap { UInt64($0) }
            }
        }
    }

    public enum ParseError: Error { case badCostLine(String) }

    /// `(id) name` defines `id`; `(id)` alone refers to it; a bare name is used as is.
    private static func resolve(_ value: Substring, _ names: inout [String: String]) -> String {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")") else { return text }
        let id = String(text[text.index(after: text.startIndex)..<close])
        let rest = text[text.index(after: close)...].trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return names[id] ?? "(\(id))" }
        names[id] = rest
        return rest
    }
}
