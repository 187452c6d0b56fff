package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/rampway/rampway"
)

// decodeOptions tune decodeJSON.
type decodeOptions struct {
	// strict refuses fields the target does not know.
	strict bool
	// optional accepts an empty body (dst stays as it is).
	optional bool
}

// decodeJSON reads the request body, at most the server's limit, into dst (a pointer to a
// struct). Every failure is an *rampway.Error saying what is wrong and where: 415 for a
// non-JSON content type (a form too, whatever its body: curl -d needs -H 'Content-Type:
// application/json'; no Content-Type at all is taken as JSON), 413 for a body over the limit,
// 400 for an empty body, malformed JSON (with line and column), a body that is not an object
// (null, an array, ...), a value of the wrong type (naming the field), an unknown field
// (strict), or data after the object.
func decodeJSON(r *http.Request, dst any, opt decodeOptions) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return rampway.Errorf(rampway.EUNSUPPORTED, "Content-Type must be application/json, not %q", rampway.Echo(ct))
		}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		if opt.optional {
			return nil
		}
		return rampway.Errorf(rampway.EINVALID, "Request body is required: a JSON object")
	}
	// encoding/json takes a null for "nothing to set": the request would read as an object
	// without fields.
	if string(trimmed) == "null" {
		return rampway.Errorf(rampway.EINVALID, "Request body must be a JSON object, not null")
	}
	// encoding/json would read invalid UTF-8 as U+FFFD: what is stored would not be what was
	// sent.
	if !utf8.Valid(body) {
		return rampway.Errorf(rampway.EINVALID, "Request body must be UTF-8 encoded JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if opt.strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return jsonError(body, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return rampway.Errorf(rampway.EINVALID, "Request body must hold exactly one JSON object")
	}
	return nil
}

// readBody reads the whole request body: 413 past the server's limit.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errTooLarge(tooLarge.Limit)
		}
		return nil, rampway.Errorf(rampway.EINVALID, "Could not read the request body")
	}
	return body, nil
}

func errTooLarge(limit int64) error {
	return rampway.Errorf(rampway.ETOOLARGE, "Request body is larger than %d bytes", limit)
}

// jsonError turns an encoding/json error into a caller-facing one.
func jsonError(body []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(body, syntax.Offset)
		return rampway.Errorf(rampway.EINVALID, "Malformed JSON at line %d, column %d: %s", line, col, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(body, int64(len(body)))
		col++ // just past the last byte
		return rampway.Errorf(rampway.EINVALID, "Malformed JSON at line %d, column %d: unexpected end of input", line, col)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return rampway.Errorf(rampway.EINVALID, "Request body must be a JSON object, not %s", jsonKind(typ.Value))
		}
		// An embedded struct's fields are the body's own: its Go name leaves the path.
		field := strings.TrimPrefix(typ.Field, "userBody.")
		return rampway.FieldErrorf(field, "Field '%s' must be %s, not %s", rampway.Echo(field), kindOf(typ.Type), jsonKind(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return rampway.FieldErrorf(name, "Unknown field '%s'", rampway.Echo(name))
	}
	return rampway.Errorf(rampway.EINVALID, "Malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// position returns the 1-based line and column of a byte offset.
func position(body []byte, offset int64) (line, col int) {
	if offset > int64(len(body)) {
		offset = int64(len(body))
	}
	before := body[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// kindOf names the JSON kind a Go type is decoded from.
func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return fmt.Sprintf("of type %s", t)
}

// jsonKind names the JSON value kinds encoding/json reports ("number 1.5" -> "a number").
func jsonKind(v string) string {
	switch {
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "string":
		return "a string"
	case v == "bool":
		return "a boolean"
	case v == "array":
		return "an array"
	case v == "object":
		return "an object"
	}
	return v
}
