package sievehttp

// Access: what the proxy refuses before forwarding anything. A client
// without a valid key when client keys are set (401), a method that is not
// an API call (CONNECT, TRACE: 405), a path that would climb out of the
// upstream's base path (".." segments, raw or escaped: 400).

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// HeaderKey carries a client key (ClientKeys) when the client's
// Authorization or x-api-key header is its own key for the upstream. Like
// every X-Toolsieve-* header it is never forwarded.
const HeaderKey = "X-Toolsieve-Key"

// ClientKeys are the keys a client must present to use the proxy
// (Proxy.ClientKeys; toolsieve proxy --client-keys-file): as
// X-Toolsieve-Key, as a bearer token in Authorization or as x-api-key (so
// that SDKs configured with the key as their API key work as they are). A
// key presented in Authorization or x-api-key is the proxy's, not the
// upstream's: that header is removed before the request goes on (the
// upstream gets the operator's credentials, from the upstream URL). Keys
// are compared in constant time, by their SHA-256 digests, against every
// key; they are never logged.
type ClientKeys struct {
	sums [][sha256.Size]byte
}

// NewClientKeys returns the keys; there must be at least one, and none may
// be empty or hold whitespace.
func NewClientKeys(keys []string) (*ClientKeys, error) {
	k := &ClientKeys{}
	for i, key := range keys {
		if key == "" || strings.ContainsAny(key, " \t\r\n") {
			return nil, fmt.Errorf("client key %d: empty or holds whitespace", i+1)
		}
		k.sums = append(k.sums, sha256.Sum256([]byte(key)))
	}
	if len(k.sums) == 0 {
		return nil, errors.New("no client key")
	}
	return k, nil
}

// LoadClientKeys reads a keys file: one key per line; blank lines and
// lines starting with # are skipped.
func LoadClientKeys(path string) (*ClientKeys, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		keys = append(keys, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	k, err := NewClientKeys(keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Len returns the number of keys.
func (k *ClientKeys) Len() int {
	if k == nil {
		return 0
	}
	return len(k.sums)
}

// match reports whether key is one of the keys, looking at every one of
// them whatever the answer (constant time for a given number of keys).
func (k *ClientKeys) match(key string) bool {
	sum := sha256.Sum256([]byte(key))
	found := 0
	for i := range k.sums {
		found |= subtle.ConstantTimeCompare(sum[:], k.sums[i][:])
	}
	return found == 1 && key != ""
}

// admit checks the request's key and removes the header that carried it
// when that is Authorization or x-api-key. It reports whether a key
// matched.
func (k *ClientKeys) admit(h http.Header) bool {
	if k.match(h.Get(HeaderKey)) {
		return true
	}
	if auth := h.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "Bearer ") && k.match(strings.TrimSpace(auth[7:])) {
		h.Del("Authorization")
		return true
	}
	if k.match(h.Get("X-Api-Key")) {
		h.Del("X-Api-Key")
		return true
	}
	return false
}

// refusedMethod reports the methods the proxy does not forward: CONNECT
// (a tunnel, not an API call; forwarded it would become "CONNECT /") and
// TRACE (the upstream would echo the request back, credentials added by
// the proxy included).
func refusedMethod(m string) bool { return m == http.MethodConnect || m == http.MethodTrace }

// allowedMethods is the Allow header of a 405.
const allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

// climbs reports a path with a ".." segment (also "..;"), however it is
// written: raw, percent-encoded once or more, or split by backslashes. The
// proxy appends the path to the upstream's base path, and a server on the
// way would resolve such a segment above it.
func climbs(u *url.URL) bool {
	p := u.EscapedPath()
	for range 4 { // each round decodes one more level of escapes
		for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
			if seg == ".." || strings.HasPrefix(seg, "..;") {
				return true
			}
		}
		d, err := url.PathUnescape(p)
		if err != nil || d == p {
			return false
		}
		p = d
	}
	return strings.Contains(p, "..") // escaped more deeply than anyone should: refused
}
