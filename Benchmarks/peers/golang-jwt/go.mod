module tokenverify.local/peers/golang-jwt

go 1.19

require github.com/golang-jwt/jwt/v4 v4.4.3

// Debian's golang-github-golang-jwt-jwt-dev installs the source here (dpkg -L); built offline.
replace github.com/golang-jwt/jwt/v4 => /usr/share/gocode/src/github.com/golang-jwt/jwt
