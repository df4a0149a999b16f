import Foundation
import TokenVerifier

// Verifies Data/demo's requests through TokenVerifier's async API and compares every verdict
// with Data/demo/expected.jsonl. Exit status 0 when all agree, 1 on any difference, 2 on bad input.
// Usage: DemoConsumer DEMO_DIRECTORY

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("DemoConsumer: \(message)\n".utf8))
    exit(status)
}

func jsonLines(_ path: String) -> [[String: Any]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)", status: 2) }
    return text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.map { line in
        if !line.hasPrefix("{") { return ["token": String(line)] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            fail("\(path): not a JSON object: \(line.prefix(60))", status: 2)
        }
        return object
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else { fail("usage: DemoConsumer DEMO_DIRECTORY", status: 2) }
let demo = arguments[1]
let verifier: Verifier
do {
    let (keys, _) = try KeySet.load(files: [demo + "/keys.jwks"])
    let revocations = try RevocationList.load(files: [demo + "/revocations.jsonl"])
    let steps = SecuritySteps(
        policy: try StepPolicy.load(file: demo + "/step-policy.json"),
        done: try DeviceSteps.load(files: [demo + "/device-steps.jsonl"]))
    verifier = Verifier(keys: keys, revocations: revocations, steps: steps)
} catch {
    fail("cannot load the demo's live state: \(error)", status: 2)
}

let requests = jsonLines(demo + "/requests.jsonl").map { line in
    VerificationRequest(
        token: line["token"] as? String ?? "", device: line["device"] as? String,
        object: line["object"] as? String, channel: line["channel"] as? String,
        command: line["command"] as? String)
}
let expected = jsonLines(demo + "/expected.jsonl")
guard requests.count == expected.count, !requests.isEmpty else {
    fail("\(requests.count) requests but \(expected.count) expected answers", status: 2)
}

/// Each request alone and the whole batch, both through the async API: the verdicts as text.
func verdicts() async throws -> (single: [String], batch: [String]) {
    var single: [String] = []
    for request in requests { single.append(text(try await verifier.verify(request))) }
    let batch: [VerificationResult] = try await verifier.verify(requests, threads: 2, chunkSize: 4)
    return (single, batch.map(text))
}

func text(_ result: VerificationResult) -> String { result.isValid ? "valid" : result.reason?.rawValue ?? "?" }

let (single, batch) = try await verdicts()
var differences = 0
var lineFormatOnly = 0
for (index, answer) in expected.enumerated() {
    let wanted = (answer["valid"] as? Bool ?? false) ? "valid" : answer["reason"] as? String ?? "?"
    // A request line the line protocol refuses (spec §6: an unknown member) never reaches the library.
    if wanted == "malformed_request" {
        lineFormatOnly += 1
        continue
    }
    for (path, got) in [("single", single[index]), ("batch", batch[index])] where got != wanted {
        differences += 1
        print("line \(index + 1) (\(path)): expected \(wanted), got \(got)")
    }
}
print(
    "DemoConsumer: \(requests.count) requests (\(lineFormatOnly) refused by the line format only), \(differences) differences"
)
exit(differences == 0 && lineFormatOnly < requests.count ? 0 : 1)
