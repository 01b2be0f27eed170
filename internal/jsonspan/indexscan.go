package jsonspan

// The scan of Index.Parse: one pass that validates a document as Valid
// does and records its values.

// An open container on the scan's stack: its node, shifted left, and
// whether it is an object in the low bit.
const openObject = 1

// strStop marks the bytes that end the plain run of a string: the quote,
// the backslash and the control characters.
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// index validates b from b[i] as Valid does and appends its values to
// nodes. The state it starts in: the value of node cur starts at b[i], or,
// with child, the next child of the innermost of the open containers
// does. t may take the rest of b from the previous document (see tail).
// It is one loop over local slices, the common cases (plain strings,
// integers, literals) scanned inline, since every call would make the
// compiler save and restore the loop's state.
func index(b []byte, nodes []node, open []int32, i int, cur int32, child bool, t *tail) ([]node, []int32, bool) {
	key := false // b[i] starts a member's key
	ks := 0      // where the key being read starts
	for {
		if child {
			child = false
			if i >= t.from && t.tries > 0 {
				if rest, ok := t.take(nodes, open, i); ok {
					return rest, open, true
				}
			}
			if open[len(open)-1]&openObject != 0 {
				key, ks = true, i
			} else {
				cur = int32(len(nodes))
				nodes = addNode(nodes, -1, -1, i, len(open))
			}
		}
		if i >= len(b) {
			return nodes, open, false
		}
		var end int
		var ok bool
		switch c := b[i]; {
		case c == '"':
			// A string: plain bytes eight at a time (SkipPlain), then
			// byte by byte up to the closing quote; escapes and errors
			// out of line (scanString).
			j := SkipPlain(b, i+1)
			for j < len(b) && !strStop[b[j]] {
				j++
			}
			if j < len(b) && b[j] == '"' {
				end = j + 1
			} else if end, ok = scanString(b, j-1); !ok {
				return nodes, open, false
			}
			if key { // the key: the value follows the colon
				if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
					return nodes, open, false
				}
				i = skipSpace(b, i+1)
				cur = int32(len(nodes))
				nodes = addNode(nodes, ks, end, i, len(open))
				key = false
				continue
			}
		case key:
			return nodes, open, false
		case c == '{' || c == '[':
			if len(open) >= maxDepth {
				return nodes, open, false
			}
			j := skipSpace(b, i+1)
			if j < len(b) && b[j] == c+2 { // '}' is '{'+2, ']' is '['+2
				end = j + 1
				break
			}
			o := cur << 1
			if c == '{' {
				o |= openObject
			}
			open = append(open, o)
			i, child = j, true
			continue
		case c >= '1' && c <= '9':
			j := i + 1
			for j < len(b) && b[j]-'0' <= 9 {
				j++
			}
			end = j
			if j < len(b) && (b[j] == '.' || b[j]|0x20 == 'e') {
				if end, ok, _ = scanNumber(b, i); !ok {
					return nodes, open, false
				}
			}
		case c == 't' || c == 'f' || c == 'n':
			if end, ok = scanLiteral(b, i, literal(c)); !ok {
				return nodes, open, false
			}
		default:
			if end, ok, _ = scanNumber(b, i); !ok {
				return nodes, open, false
			}
		}
		// The value of cur ended at end: go on in its container, closing
		// those that end here.
		for {
			nodes[cur].end, nodes[cur].after = int32(end), int32(len(nodes))
			if len(open) == 0 {
				return nodes, open, skipSpace(b, end) == len(b)
			}
			if i = skipSpace(b, end); i >= len(b) {
				return nodes, open, false
			}
			up := open[len(open)-1]
			if b[i] == ',' {
				i, child = skipSpace(b, i+1), true
				break
			}
			closer := byte(']')
			if up&openObject != 0 {
				closer = '}'
			}
			if b[i] != closer {
				return nodes, open, false
			}
			cur, end = up>>1, i+1
			open = open[:len(open)-1]
		}
	}
}

// addNode appends the node of a value starting at b[start], with the key
// at b[ks:ke], held by depth containers. The fields are stored one by one:
// building the node aside and copying it makes the processor wait for the
// stores to reach memory.
func addNode(nodes []node, ks, ke, start, depth int) []node {
	if len(nodes) == cap(nodes) {
		nodes = append(nodes, node{})[:len(nodes)]
	}
	nodes = nodes[:len(nodes)+1]
	n := &nodes[len(nodes)-1]
	n.keyStart, n.keyEnd, n.start, n.depth = int32(ks), int32(ke), int32(start), int32(depth)
	return nodes
}

// skipSpace is SkipSpace with a fast path for the common case, no
// whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && IsSpace(b[i]) {
		i++
	}
	return i
}
