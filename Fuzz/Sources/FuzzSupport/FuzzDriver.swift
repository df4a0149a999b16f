#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

nonisolated(unsafe) private var fuzzBody: ((UnsafeBufferPointer<UInt8>) -> Void)?

/// Hands control to libFuzzer (linked by `-sanitize=fuzzer`), which calls `body` with each
/// input. SwiftPM gives every executable its own `main`, so the harnesses start libFuzzer's
/// driver from there instead of letting libFuzzer provide `main`.
public func runFuzzer(_ body: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Never {
    fuzzBody = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzBody!(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size))
        return 0
    }
    exit(status)
}

/// libFuzzer's archive refers to this symbol even when its driver is started from our `main`;
/// inputs reach the body given to ``runFuzzer(_:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzBody!(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size))
    return 0
}
