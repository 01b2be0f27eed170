package fsm

import "testing"

// TestUnderscoreID checks kimi's underscored call id, including headers
// that are a prefix and an index with no name between them (a fuzz find:
// `functions_5` sliced past its own prefix).
func TestUnderscoreID(t *testing.T) {
	declared := func(name []byte) bool { return string(name) == "read_file" }
	for _, tc := range []struct{ header, want string }{
		{"functions_read_file_0", "read_file"},
		{"functions_read_file_12", "read_file"},
		{"functions_other_0", ""},
		{"functions_read_file", ""},
		{"functions_5", ""},
		{"functions__5", ""},
		{"functions_", ""},
		{"functions_0_1", ""},
	} {
		if got := string(underscoreID([]byte(tc.header), declared)); got != tc.want {
			t.Errorf("underscoreID(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}
