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
let verifier: TokenVerifier
do {
    let (keys, _) = try KeySet.load(files: [demo + "/keys.jwks"])
    let revocations = try RevocationList.load(files: [demo + "/revocations.jsonl"])
    let steps = SecuritySteps(policy: try StepPolicy.load(file: demo + "/step-policy.json"),
                              done: try DeviceSteps.load(files: [demo + "/device-steps.jsonl"]))
    verifier = TokenVerifier(keys: keys, revocations: revocations, steps: steps)
} catch {
    fail("cannot load the demo's live state: \(error)", status: 2)
}

let requests = jsonLines(demo + "/requests.jsonl").map { line in
    VerificationRequest(token: line["token"] as? String ?? "", device: line["device"] as? String,
                        object: line["object"] as? String, channel: line["channel"] as? String,
                        command: line["command"] as? String)
}
let expected = jsonLines(demo + "/expected.jsonl")
guard requests.count == expected.count, !requests.isEmpty else {
    fail("\(requests.count) requests but \(expected.count) expected answers", status: 2)
}

// One request at a time and the whole batch, both through the async API.
var one: [VerificationResult] = []
for request in requests { one.append(try await verifier.verify(request)) }
let batch = try await verifier.verify(requests)
var differences = 0
for (index, answer) in expected.enumerated() {
    let wanted = (answer["valid"] as? Bool ?? false) ? "valid" : answer["reason"] as? String ?? "?"
    for (path, result) in [("single", one[index]), ("batch", batch[index])] {
        let got = result.isValid ? "valid" : result.reason?.rawValue ?? "?"
        if got != wanted {
            differences += 1
            print("line \(index + 1) (\(path)): expected \(wanted), got \(got)")
        }
    }
}
print("DemoConsumer: \(requests.count) requests, \(differences) differences")
exit(differences == 0 ? 0 : 1)
