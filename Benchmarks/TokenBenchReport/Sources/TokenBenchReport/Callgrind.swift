import Foundation

/// Reads a callgrind output file (`callgrind.out.*`) into instructions per object file, and per
/// function within each object.
///
/// Only self cost is summed: a cost line right after `calls=` is the inclusive cost of that
/// call, kept apart per call edge (``instructionsByCall``) and not added to the self costs (it
/// is already counted where the callee's own lines are). Names may be compressed
/// (`ob=(3) /lib/libsodium.so` the first time, `ob=(3)` afterwards).
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
    /// Inclusive instructions of the calls from one function (the caller, with its object) to
    /// another (the callee's name).
    public var instructionsByCall: [CallKey: UInt64] = [:]

    /// A call edge: the calling function and the function called.
    public struct CallKey: Hashable, Sendable {
        public var caller: FunctionKey
        public var callee: FunctionKey
    }

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

    /// Instructions spent in calls made by the functions `isCaller` accepts (given a function's
    /// object file name and its name) to the functions `isCallee` accepts: what a library costs
    /// in the C library functions it calls (its allocations, say). The callees must call nothing
    /// back, or their cost would be counted twice.
    public func instructions(
        calledFrom isCaller: (_ objectFile: String, _ function: String) -> Bool,
        into isCallee: (_ objectFile: String, _ function: String) -> Bool
    ) -> UInt64 {
        func file(_ object: String) -> String { object.split(separator: "/").last.map(String.init) ?? object }
        return instructionsByCall.filter { call, _ in
            isCaller(file(call.caller.object), call.caller.function)
                && isCallee(file(call.callee.object), call.callee.function)
        }.values.reduce(0, +)
    }

    public init(parsing text: String) throws {
        var objectNames: [String: String] = [:]
        var functionNames: [String: String] = [:]
        var currentObject = "???"
        var currentFunction = "???"
        var calledFunction = "???"
        // A call's callee lies in the object its `cob=` names, or in the caller's without one.
        var calledObject: String? = nil
        var callee = FunctionKey(object: "???", function: "???")
        var skipNextCost = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                if skipNextCost {
                    skipNextCost = false
                    let fields = line.split(separator: " ")
                    if fields.count >= 2, let cost = UInt64(fields[1]) {
                        let caller = FunctionKey(object: currentObject, function: currentFunction)
                        instructionsByCall[CallKey(caller: caller, callee: callee), default: 0] += cost
                    }
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
                // The function the next `calls=` calls; the caller stays in `fn`.
                calledFunction = Self.resolve(line.dropFirst(4), &functionNames)
            } else if line.hasPrefix("cob=") {
                calledObject = Self.resolve(line.dropFirst(4), &objectNames)  // the caller stays in `ob`
            } else if line.hasPrefix("calls=") {
                callee = FunctionKey(object: calledObject ?? currentObject, function: calledFunction)
                calledObject = nil
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
