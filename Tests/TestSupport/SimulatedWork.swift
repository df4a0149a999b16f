/// Work of a chosen length, for tests that need tasks to finish out of order or a consumer that
/// is slower than its producers: `units` rounds of arithmetic (a few nanoseconds each) that the
/// optimiser cannot remove. It stands for a real task's work; it is not a wait.
package func simulatedWork(units: Int) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for unit in 0..<max(units, 0) {
        state = (state ^ UInt64(truncatingIfNeeded: unit)) &* 0xBF58_476D_1CE4_E5B9
        state ^= state >> 31
    }
    keep(state)
}

@inline(never)
private func keep(_ value: UInt64) {
    if value == 0x1234_5678 { print("", terminator: "") }
}
