//! jsonwebtoken-verify KEYS.jwks TOKENS.txt THREADS AT
//!
//! The jsonwebtoken (Rust, ring) peer of Benchmarks/compare: verifies every token of TOKENS.txt
//! (one compact token a line) against the JWKS file on THREADS threads, checking the signature
//! with the key named by the header's kid (the algorithm comes from the key: EdDSA for OKP
//! Ed25519, ES256 for EC P-256) and exp and nbf at the check time AT. jsonwebtoken 8 checks times
//! against the clock only, so its time checks are off and the same rule is applied here after it
//! verified the signature: valid iff nbf <= AT < exp (exp required). All tokens are read into
//! memory first; the wall and CPU time (getrusage, user + sys) cover the verification only.
//! Prints one summary line.

use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::collections::HashMap;
use std::time::Instant;
use std::{env, fs, process, thread};

#[derive(Deserialize)]
struct Jwk {
    kty: String,
    crv: String,
    kid: String,
    x: String,
    y: Option<String>,
}

#[derive(Deserialize)]
struct JwkSet {
    keys: Vec<Jwk>,
}

/// The time claims; jsonwebtoken verifies the signature, the rest is ignored here.
#[derive(Deserialize)]
struct TimeClaims {
    exp: f64,
    nbf: Option<f64>,
}

/// One key: what verifies with it and the only algorithm it verifies.
struct VerificationKey {
    key: DecodingKey,
    validation: Validation,
}

fn load_keys(path: &str) -> Result<HashMap<String, VerificationKey>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let set: JwkSet = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut keys = HashMap::new();
    for jwk in set.keys {
        let (key, algorithm) = match (jwk.kty.as_str(), jwk.crv.as_str(), &jwk.y) {
            ("OKP", "Ed25519", None) => (DecodingKey::from_ed_components(&jwk.x), Algorithm::EdDSA),
            ("EC", "P-256", Some(y)) => (DecodingKey::from_ec_components(&jwk.x, y), Algorithm::ES256),
            _ => return Err(format!("key {}: unsupported {} {}", jwk.kid, jwk.kty, jwk.crv)),
        };
        let key = key.map_err(|e| format!("key {}: {e}", jwk.kid))?;
        let mut validation = Validation::new(algorithm);
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.required_spec_claims.clear();
        keys.insert(jwk.kid, VerificationKey { key, validation });
    }
    Ok(keys)
}

fn is_valid(token: &str, keys: &HashMap<String, VerificationKey>, at: f64) -> bool {
    // No let-else: Debian 12's rustc (1.63) builds this too.
    let key = match decode_header(token).ok().and_then(|header| header.kid).and_then(|kid| keys.get(&kid)) {
        Some(key) => key,
        None => return false,
    };
    match decode::<TimeClaims>(token, &key.key, &key.validation) {
        Ok(data) => data.claims.nbf.map_or(true, |nbf| nbf <= at) && at < data.claims.exp,
        Err(_) => false,
    }
}

fn cpu_seconds() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        panic!("getrusage failed");
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn fail(message: &str, code: i32) -> ! {
    eprintln!("jsonwebtoken-verify: {message}");
    process::exit(code)
}

fn main() {
    let arguments: Vec<String> = env::args().collect();
    if arguments.len() != 5 {
        fail("usage: jsonwebtoken-verify KEYS.jwks TOKENS.txt THREADS AT", 2);
    }
    let threads: usize = match arguments[3].parse() {
        Ok(n) if n >= 1 => n,
        _ => fail("THREADS must be a positive integer", 2),
    };
    let at: f64 = arguments[4].parse().unwrap_or_else(|_| fail("AT must be a NumericDate", 2));
    let keys = load_keys(&arguments[1]).unwrap_or_else(|e| fail(&e, 1));
    let text = fs::read_to_string(&arguments[2]).unwrap_or_else(|e| fail(&format!("{}: {e}", arguments[2]), 1));
    let tokens: Vec<&str> = text.lines().filter(|line| !line.is_empty()).collect();

    let (cpu_before, start) = (cpu_seconds(), Instant::now());
    let valid: usize = thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let (tokens, keys) = (&tokens, &keys);
                scope.spawn(move || tokens.iter().skip(first).step_by(threads).filter(|t| is_valid(t, keys, at)).count())
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("worker panicked")).sum()
    });
    let (wall, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu_before);
    let count = tokens.len();
    println!(
        "jsonwebtoken: {count} tokens, {valid} valid, {} invalid, {wall:.3} s wall, {:.0} tokens/s, {cpu:.3} s CPU, {:.0} tokens/CPU-s, {threads} threads",
        count - valid,
        count as f64 / wall,
        count as f64 / cpu
    );
}
