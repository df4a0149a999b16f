import FuzzSupport
import TokenVerifier

/// JWKS documents: the strict JSON reader and every key rule of spec §3. A document either
/// loads or is refused with an error naming the file.
runFuzzer { bytes in
    let size = bytes.count
    do throws(KeySetError) {
        let (keys, _) = try KeySet.parse(bytes, file: "fuzz.jwks")
        for key in keys.keys { precondition(keys[key.keyID] != nil, "every loaded key is found by its kid") }
    } catch {
        precondition(error.file == "fuzz.jwks", "a refusal names the file")
    }
}
