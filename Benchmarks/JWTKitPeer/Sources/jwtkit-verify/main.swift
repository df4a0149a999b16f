import Foundation
import JWTKit

// jwtkit-verify KEYS.jwks TOKENS.txt [TASKS]
//
// Verifies every token of TOKENS.txt (one compact token a line) with vapor/jwt-kit against the
// JWKS file, on TASKS concurrent tasks (default: the active cores), each with its own key
// collection (JWTKeyCollection is an actor: one shared collection would run one task at a time).
// The check time is 1,800,000,000, as for `tokenverify gen` sets. Prints one summary line.

struct CarKeyClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var jti: IDClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var env: String?
    var ch: [String]
    var cmd: [String]
    var role: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired(currentDate: Date(timeIntervalSince1970: 1_800_000_000))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: jwtkit-verify KEYS.jwks TOKENS.txt [TASKS]\n".utf8))
    exit(2)
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
print("jwt-kit: \(tokens.count) tokens (\(valid) valid) in \(String(format: "%.2f", seconds)) s, \(Int(Double(tokens.count) / seconds)) tokens/s on \(tasks) tasks")
