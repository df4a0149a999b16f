// golang-jwt-verify KEYS.jwks TOKENS.txt THREADS AT
//
// The golang-jwt (v4) peer of Benchmarks/compare: verifies every token of TOKENS.txt (one compact
// token a line) against the JWKS file on THREADS goroutines (GOMAXPROCS = THREADS), checking the
// signature with the key named by the header's kid (the algorithm comes from the key: EdDSA for
// OKP Ed25519, ES256 for EC P-256) and exp and nbf at the check time AT (NumericDate). All tokens
// are read into memory first; the wall and CPU time (getrusage, user + sys) cover the verification
// only. Prints one summary line.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

// verificationKey is one JWKS key: the public key and the only algorithm it verifies.
type verificationKey struct {
	alg string
	key interface{}
}

type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Kid string `json:"kid"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func loadKeys(path string) (map[string]verificationKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set struct{ Keys []jwk }
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	keys := map[string]verificationKey{}
	for _, k := range set.Keys {
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil {
			return nil, fmt.Errorf("key %s: x: %w", k.Kid, err)
		}
		switch {
		case k.Kty == "OKP" && k.Crv == "Ed25519" && len(x) == ed25519.PublicKeySize:
			keys[k.Kid] = verificationKey{"EdDSA", ed25519.PublicKey(x)}
		case k.Kty == "EC" && k.Crv == "P-256":
			y, err := base64.RawURLEncoding.DecodeString(k.Y)
			if err != nil {
				return nil, fmt.Errorf("key %s: y: %w", k.Kid, err)
			}
			public := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
			if !public.Curve.IsOnCurve(public.X, public.Y) {
				return nil, fmt.Errorf("key %s: not on P-256", k.Kid)
			}
			keys[k.Kid] = verificationKey{"ES256", public}
		default:
			return nil, fmt.Errorf("key %s: unsupported %s %s", k.Kid, k.Kty, k.Crv)
		}
	}
	return keys, nil
}

func readTokens(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var tokens []string
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<16), 1<<20)
	for scanner.Scan() {
		if line := scanner.Text(); line != "" {
			tokens = append(tokens, line)
		}
	}
	return tokens, scanner.Err()
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: golang-jwt-verify KEYS.jwks TOKENS.txt THREADS AT")
		os.Exit(2)
	}
	threads, err := strconv.Atoi(os.Args[3])
	if err != nil || threads < 1 {
		fmt.Fprintln(os.Stderr, "golang-jwt-verify: THREADS must be a positive integer")
		os.Exit(2)
	}
	at, err := strconv.ParseInt(os.Args[4], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "golang-jwt-verify: AT must be an integer NumericDate")
		os.Exit(2)
	}
	keys, err := loadKeys(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "golang-jwt-verify:", err)
		os.Exit(1)
	}
	tokens, err := readTokens(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "golang-jwt-verify:", err)
		os.Exit(1)
	}
	runtime.GOMAXPROCS(threads)
	// v4 validates exp, nbf and iat against jwt.TimeFunc.
	jwt.TimeFunc = func() time.Time { return time.Unix(at, 0) }
	keyFor := func(token *jwt.Token) (interface{}, error) {
		kid, _ := token.Header["kid"].(string)
		key, found := keys[kid]
		if !found {
			return nil, errors.New("unknown kid")
		}
		if token.Method.Alg() != key.alg {
			return nil, errors.New("alg does not match the key")
		}
		return key.key, nil
	}

	counts := make([]int, threads)
	var group sync.WaitGroup
	cpuBefore, start := cpuSeconds(), time.Now()
	for thread := 0; thread < threads; thread++ {
		group.Add(1)
		go func(thread int) {
			defer group.Done()
			parser := jwt.NewParser(jwt.WithValidMethods([]string{"EdDSA", "ES256"}))
			valid := 0
			for index := thread; index < len(tokens); index += threads {
				var claims jwt.RegisteredClaims
				token, err := parser.ParseWithClaims(tokens[index], &claims, keyFor)
				// v4 does not require exp; the contract does.
				if err == nil && token.Valid && claims.ExpiresAt != nil {
					valid++
				}
			}
			counts[thread] = valid
		}(thread)
	}
	group.Wait()
	wall, cpu := time.Since(start).Seconds(), cpuSeconds()-cpuBefore
	valid := 0
	for _, count := range counts {
		valid += count
	}
	fmt.Printf("golang-jwt: %d tokens, %d valid, %d invalid, %.3f s wall, %.0f tokens/s, %.3f s CPU, %.0f tokens/CPU-s, %d threads\n",
		len(tokens), valid, len(tokens)-valid, wall, float64(len(tokens))/wall, cpu, float64(len(tokens))/cpu, threads)
}
