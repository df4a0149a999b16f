import Foundation
import FuzzSupport
import TokenVerifier

/// Status List Tokens (spec §4c): the input is a list token's file (compact JWS, base64url or raw
/// CBOR of a CWT). It is read and inflated unverified (as `inspect` does, within a small limit),
/// and loaded against the demo keys and trust anchor (as `verify` does, a list carrying a chain
/// checked by it): either it loads or it is refused with a message naming its source; an
/// entry's value always fits its bits.
let keys = FuzzVerifier.keys
let anchors = FuzzVerifier.anchors

runFuzzer { bytes in
    let input = Array(bytes)
    do throws(StatusListError) {
        let entries = try StatusListInspection.entries(of: input, maxInflatedBytes: 1 << 16)
        precondition([1, 2, 4, 8].contains(entries.bits), "bits 1, 2, 4 or 8")
        for entry in entries.nonZero {
            precondition(entry.status != 0 && Int(entry.status) < 1 << entries.bits, "a value fits its bits")
        }
    } catch {
        precondition(error.source == "the token", "a refusal names its source")
    }
    do throws(StatusListError) {
        let list = try StatusListToken.load(
            bytes: input, source: "fuzz", keys: keys, anchors: anchors, maxInflatedBytes: 1 << 16)
        precondition(list.status(at: UInt64(list.count)) == nil, "nothing beyond the entries")
    } catch {
        precondition(error.source == "fuzz", "a refusal names its source")
    }
}
