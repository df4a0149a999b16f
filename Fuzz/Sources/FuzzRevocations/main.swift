import FuzzSupport
import TokenVerifier

/// Revocation lists: JSON lines of spec §4. A list either loads, with one entry per non-blank
/// line, or is refused with the line that failed.
runFuzzer { bytes in
    let size = bytes.count
    do throws(RevocationListError) {
        let list = try RevocationList.parse(bytes, file: "fuzz.jsonl")
        precondition(list.count <= size / 2 + 1, "no more entries than lines")
    } catch {
        precondition(error.description.contains("fuzz.jsonl"), "a refusal names the file")
    }
}
