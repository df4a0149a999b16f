import Foundation
import JWTKit

// jwtkit-verify KEYS.jwks TOKENS.txt [TASKS [AT]]
//
// Verifies every token of TOKENS.txt (one compact token a line) with vapor/jwt-kit against the
// JWKS file, on TASKS concurrent tasks (default: the active cores), each with its own key
// collection (JWTKeyCollection is an actor: one shared collection would run one task at a time).
// exp and nbf are checked at AT (default 1,800,000,000, as for `tokenverify gen` sets). The wall
// and CPU time (getrusage, user + sys) cover the verification only. Prints one summary line, in
// the shape of the other peers in Benchmarks/peers.

struct CarKeyClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var jti: IDClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    var env: String?
    var ch: [String]
    var cmd: [String]
    var role: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired(currentDate: CheckTime.date)
        try nbf?.verifyNotBefore(currentDate: CheckTime.date)
    }
}

let arguments = CommandLine.arguments
guard (3...5).contains(arguments.count) else {
    FileHandle.standardError.write(Data("usage: jwtkit-verify KEYS.jwks TOKENS.txt [TASKS [AT]]\n".utf8))
    exit(2)
}
guard arguments.count < 5 || Double(arguments[4]) != nil else {
    FileHandle.standardError.write(Data("jwtkit-verify: AT must be a NumericDate\n".utf8))
    exit(2)
}

/// The check time for exp and nbf (the optional fourth argument).
enum CheckTime {
    static let date = Date(
        timeIntervalSince1970: CommandLine.arguments.count > 4 ? Double(CommandLine.arguments[4])! : 1_800_000_000)
}
let jwks = try String(contentsOfFile: arguments[1], encoding: .utf8)
let tokens = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
let tasks = arguments.count > 3 ? Int(arguments[3])! : ProcessInfo.processInfo.activeProcessorCount

var collections: [JWTKeyCollection] = []
for _ in 0..<tasks { collections.append(try await JWTKeyCollection().add(jwksJSON: jwks)) }

/// Verifies every `stride`-th token from `first` with `keys`; returns how many verified. Not
/// isolated to the main actor, so the tasks run in parallel on the cooperative pool.
nonisolated func verifySlice(_ keys: JWTKeyCollection, _ tokens: [[UInt8]], first: Int, stride: Int) async -> Int {
    var valid = 0
    var index = first
    while index < tokens.count {
        if (try? await keys.verify(tokens[index], as: CarKeyClaims.self)) != nil { valid += 1 }
        index += stride
    }
    return valid
}

/// This process's CPU seconds so far (user + system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

let cpuBefore = cpuSeconds()
let start = Date()
let valid = await withTaskGroup(of: Int.self) { group in
    for task in 0..<tasks {
        let keys = collections[task]
        group.addTask { await verifySlice(keys, tokens, first: task, stride: tasks) }
    }
    var total = 0
    for await count in group { total += count }
    return total
}
let seconds = Date().timeIntervalSince(start)
let cpu = cpuSeconds() - cpuBefore
let count = Double(tokens.count)
print(
    "jwt-kit: \(tokens.count) tokens, \(valid) valid, \(tokens.count - valid) invalid, "
        + String(
            format: "%.3f s wall, %.0f tokens/s, %.3f s CPU, %.0f tokens/CPU-s, ", seconds, count / seconds, cpu,
            count / cpu)
        + "\(tasks) threads")
