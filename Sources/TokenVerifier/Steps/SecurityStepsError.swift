/// A step policy or device-steps file that cannot be loaded (spec §4b).
public struct SecurityStepsError: Error, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line number, when the problem is on a line.
    public var line: Int?
    public var message: String

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}

/// The 1-based line of byte `offset` in `bytes`.
func lineNumber(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var line = 1
    for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A { line += 1 }
    return line
}

/// Calls `body` with each line of a file and its 1-based number (the shared streaming reader,
/// ``forEachLine(ofFile:readError:_:)``, with this module's error; `what` names the file's kind).
func forEachStepLine(
    ofFile path: String, what: String,
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(SecurityStepsError) -> Void
) throws(SecurityStepsError) {
    try forEachLine(
        ofFile: path, readError: { SecurityStepsError(file: path, line: nil, message: "cannot read \(what): \($0)") },
        body)
}
