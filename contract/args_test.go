package contract

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// wantPrefix is spelled out here rather than taken from the package, so a change to the
// user-facing text fails the tests.
const wantPrefix = "Function arguments are not valid: "

// Fragments used by the table tests (and, with the table's args, as the fuzz seed corpus).
var (
	fragTransfer = fragN("transfer", "to address", "amount uint256")
	fragPing     = fragN("ping")
	fragOrder    = `{"type":"function","name":"f","inputs":[{"name":"order","type":"tuple","components":[
		{"name":"buyer","type":"address"},{"name":"price","type":"uint256"}]}]}`
	fragOrders = `{"type":"function","name":"f","inputs":[{"name":"orders","type":"tuple[]","components":[
		{"name":"buyer","type":"address"},
		{"name":"items","type":"tuple[]","components":[{"name":"id","type":"uint256"},{"name":"tags","type":"bytes32[]"}]}]}]}`
	fragNotes = `{"type":"function","name":"f","inputs":[{"name":"notes","type":"tuple[]","components":[
		{"name":"id","type":"uint256"},{"name":"memo","type":"string"}]}]}`
	fragKitchen = `{"type":"function","name":"kitchen","stateMutability":"payable","inputs":[
		{"name":"u8","type":"uint8"},{"name":"u256","type":"uint256"},{"name":"i64","type":"int64"},{"name":"i256","type":"int256"},
		{"name":"u24","type":"uint24"},{"name":"a","type":"address"},{"name":"b","type":"bool"},{"name":"s","type":"string"},
		{"name":"bs","type":"bytes"},{"name":"b32","type":"bytes32"},{"name":"b1","type":"bytes1"},{"name":"fn","type":"function"},
		{"name":"ids","type":"uint256[]"},{"name":"pair","type":"address[2]"},{"name":"grid","type":"uint256[][2]"},
		{"name":"order","type":"tuple","components":[{"name":"buyer","type":"address"},{"name":"ids","type":"uint256[]"},
			{"name":"meta","type":"tuple","components":[{"name":"tag","type":"bytes4"},{"name":"note","type":"string"}]}]},
		{"name":"items","type":"tuple[]","components":[{"name":"id","type":"uint64"},{"name":"qty","type":"uint16"}]}]}`
)

// Hand-built Go types for the tuples above: go-ethereum packs them by field name.
type (
	tOrder struct {
		Buyer common.Address
		Price *big.Int
	}
	tItem struct {
		Id   *big.Int
		Tags [][32]byte
	}
	tOrders struct {
		Buyer common.Address
		Items []tItem
	}
	tNote struct {
		Id   *big.Int
		Memo string
	}
	kMeta struct {
		Tag  [4]byte
		Note string
	}
	kOrder struct {
		Buyer common.Address
		Ids   []*big.Int
		Meta  kMeta
	}
	kItem struct {
		Id  uint64
		Qty uint16
	}
)

const (
	addrLower    = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
	addrUpper    = "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED"
	addrChecksum = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // EIP-55 test vector
	addrBadSum   = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" // last letter's case flipped
	addr2        = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359" // EIP-55 test vector
	hex32        = "0x00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	hex24        = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeda9059cbb"
	maxU256      = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	maxU256p1    = "115792089237316195423570985008687907853269984665640564039457584007913129639936"
)

func bi(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic("bad big int " + s)
	}
	return x
}

// pow2 returns 2^n + d.
func pow2(n uint, d int64) *big.Int {
	return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), n), big.NewInt(d))
}

func addr(s string) common.Address { return common.HexToAddress(s) }

func hexb(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}

func b32(s string) (out [32]byte) { copy(out[:], hexb(s)); return }

func x(v string) string { return `{"x":` + v + `}` }

type argCase struct {
	name string
	frag string
	args string
	want []any  // valid: hand-built values; the calldata must equal selector + Pack(want...)
	err  string // invalid: the message after wantPrefix
}

func argCases() []argCase {
	u8, u16, u24, u32, u64, u128, u256 := frag1("uint8"), frag1("uint16"), frag1("uint24"), frag1("uint32"), frag1("uint64"), frag1("uint128"), frag1("uint256")
	i8, i16, i32, i64, i128, i256, i40 := frag1("int8"), frag1("int16"), frag1("int32"), frag1("int64"), frag1("int128"), frag1("int256"), frag1("int40")
	one := func(v any) []any { return []any{v} }
	ok := func(name, frag, args string, v any) argCase {
		return argCase{name: name, frag: frag, args: args, want: one(v)}
	}
	bad := func(name, frag, args, msg string) argCase {
		return argCase{name: name, frag: frag, args: args, err: msg}
	}
	mustX := func(typ string) string { return "argument 'x' must be of type " + typ }

	cases := []argCase{
		// uint8 and int8 boundaries; decimal and hex strings.
		ok("uint8 0", u8, x(`0`), uint8(0)),
		ok("uint8 255", u8, x(`255`), uint8(255)),
		bad("uint8 256", u8, x(`256`), mustX("uint8")),
		bad("uint8 negative", u8, x(`-1`), mustX("uint8")),
		ok("uint8 decimal string", u8, x(`"255"`), uint8(255)),
		bad("uint8 decimal string 256", u8, x(`"256"`), mustX("uint8")),
		ok("uint8 hex string", u8, x(`"0xff"`), uint8(255)),
		ok("uint8 upper hex digits", u8, x(`"0xFF"`), uint8(255)),
		ok("uint8 hex with leading zeros", u8, x(`"0x00ff"`), uint8(255)),
		bad("uint8 hex 0x100", u8, x(`"0x100"`), mustX("uint8")),
		bad("uint8 0X prefix", u8, x(`"0XFF"`), mustX("uint8")),
		bad("uint8 bare 0x", u8, x(`"0x"`), mustX("uint8")),
		bad("uint8 negative hex", u8, x(`"-0x1"`), mustX("uint8")),
		bad("uint8 bad hex digit", u8, x(`"0xfg"`), mustX("uint8")),
		bad("uint8 empty string", u8, x(`""`), mustX("uint8")),
		bad("uint8 plus sign", u8, x(`"+1"`), mustX("uint8")),
		bad("uint8 spaces", u8, x(`" 1"`), mustX("uint8")),
		bad("uint8 exponent in string", u8, x(`"1e2"`), mustX("uint8")),
		bad("uint8 fraction in string", u8, x(`"1.0"`), mustX("uint8")),
		bad("uint8 bool", u8, x(`true`), mustX("uint8")),
		bad("uint8 null", u8, x(`null`), mustX("uint8")),
		bad("uint8 array", u8, x(`[1]`), mustX("uint8")),
		bad("uint8 object", u8, x(`{}`), mustX("uint8")),
		ok("int8 -128", i8, x(`-128`), int8(-128)),
		ok("int8 127", i8, x(`127`), int8(127)),
		bad("int8 -129", i8, x(`-129`), mustX("int8")),
		bad("int8 128", i8, x(`128`), mustX("int8")),
		ok("int8 negative decimal string", i8, x(`"-128"`), int8(-128)),
		bad("int8 -129 string", i8, x(`"-129"`), mustX("int8")),
		ok("int8 negative zero", i8, x(`-0`), int8(0)),
		ok("int8 hex 0x7f", i8, x(`"0x7f"`), int8(127)),
		bad("int8 hex 0x80", i8, x(`"0x80"`), mustX("int8")),

		// The other native sizes.
		ok("uint16 65535", u16, x(`65535`), uint16(65535)),
		bad("uint16 65536", u16, x(`65536`), mustX("uint16")),
		ok("uint16 1e3", u16, x(`1e3`), uint16(1000)),
		ok("uint16 1E3", u16, x(`1E3`), uint16(1000)),
		ok("uint16 1e+3", u16, x(`1e+3`), uint16(1000)),
		ok("uint16 1.5e3", u16, x(`1.5e3`), uint16(1500)),
		ok("uint16 1.0 is an exact integer", u16, x(`1.0`), uint16(1)),
		ok("uint16 100e-2 is an exact integer", u16, x(`100e-2`), uint16(1)),
		ok("uint16 0e-5", u16, x(`0e-5`), uint16(0)),
		ok("uint16 0.0", u16, x(`0.0`), uint16(0)),
		bad("uint16 fraction", u16, x(`1.5`), mustX("uint16")),
		bad("uint16 small fraction", u16, x(`0.001`), mustX("uint16")),
		bad("uint16 1.23e1", u16, x(`1.23e1`), mustX("uint16")),
		bad("uint16 1e-1", u16, x(`1e-1`), mustX("uint16")),
		bad("uint16 1e5 out of range", u16, x(`1e5`), mustX("uint16")),
		ok("int16 -32768", i16, x(`-32768`), int16(-32768)),
		bad("int16 32768", i16, x(`32768`), mustX("int16")),
		ok("uint24 max is a big.Int", u24, x(`16777215`), big.NewInt(16777215)),
		bad("uint24 max+1", u24, x(`16777216`), mustX("uint24")),
		ok("uint32 max", u32, x(`4294967295`), uint32(4294967295)),
		bad("uint32 max+1", u32, x(`4294967296`), mustX("uint32")),
		ok("int32 min", i32, x(`-2147483648`), int32(-2147483648)),
		bad("int32 min-1", i32, x(`-2147483649`), mustX("int32")),
		ok("int40 min", i40, x(new(big.Int).Neg(pow2(39, 0)).String()), new(big.Int).Neg(pow2(39, 0))),
		bad("int40 max+1", i40, x(pow2(39, 0).String()), mustX("int40")),
		ok("uint64 max, beyond float64 precision", u64, x(`18446744073709551615`), uint64(18446744073709551615)),
		bad("uint64 max+1", u64, x(`18446744073709551616`), mustX("uint64")),
		ok("uint64 hex max", u64, x(`"0xffffffffffffffff"`), uint64(18446744073709551615)),
		ok("int64 min", i64, x(`-9223372036854775808`), int64(-9223372036854775808)),
		ok("int64 max", i64, x(`9223372036854775807`), int64(9223372036854775807)),
		bad("int64 min-1", i64, x(`-9223372036854775809`), mustX("int64")),
		bad("int64 max+1", i64, x(`9223372036854775808`), mustX("int64")),
		bad("int64 max+1 string", i64, x(`"9223372036854775808"`), mustX("int64")),
		ok("uint128 max", u128, x(pow2(128, -1).String()), pow2(128, -1)),
		bad("uint128 max+1", u128, x(pow2(128, 0).String()), mustX("uint128")),
		ok("int128 min string", i128, x(`"`+new(big.Int).Neg(pow2(127, 0)).String()+`"`), new(big.Int).Neg(pow2(127, 0))),
		bad("int128 min-1", i128, x(new(big.Int).Neg(pow2(127, 1)).String()), mustX("int128")),

		// uint256 / int256.
		ok("uint256 max number", u256, x(maxU256), pow2(256, -1)),
		ok("uint256 max string", u256, x(`"`+maxU256+`"`), pow2(256, -1)),
		ok("uint256 max hex", u256, x(`"0x`+strings.Repeat("f", 64)+`"`), pow2(256, -1)),
		bad("uint256 max+1 number", u256, x(maxU256p1), mustX("uint256")),
		bad("uint256 max+1 string", u256, x(`"`+maxU256p1+`"`), mustX("uint256")),
		bad("uint256 max+1 hex", u256, x(`"0x1`+strings.Repeat("0", 64)+`"`), mustX("uint256")),
		bad("uint256 negative", u256, x(`-1`), mustX("uint256")),
		bad("uint256 negative string", u256, x(`"-1"`), mustX("uint256")),
		ok("uint256 negative zero string", u256, x(`"-0"`), big.NewInt(0)),
		ok("uint256 leading zeros in string", u256, x(`"000123"`), big.NewInt(123)),
		ok("uint256 2^53+1 keeps precision", u256, x(`9007199254740993`), big.NewInt(9007199254740993)),
		ok("uint256 1e77", u256, x(`1e77`), bi("1"+strings.Repeat("0", 77))),
		ok("uint256 1.5e18 wei", u256, x(`1.5e18`), bi("1500000000000000000")),
		bad("uint256 1e78", u256, x(`1e78`), mustX("uint256")),
		bad("uint256 huge exponent", u256, x(`1e999999999999`), mustX("uint256")),
		bad("uint256 huge negative exponent", u256, x(`1e-999999999999`), mustX("uint256")),
		ok("uint256 zero with huge exponent", u256, x(`0e999999999999`), big.NewInt(0)),
		ok("uint256 many leading zeros in string", u256, x(`"`+strings.Repeat("0", 100)+`7"`), big.NewInt(7)),
		ok("uint256 long leading-zero hex", u256, x(`"0x`+strings.Repeat("0", 100)+`1"`), big.NewInt(1)),
		bad("uint256 decimal too long", u256, x(`"`+strings.Repeat("9", 200)+`"`), mustX("uint256")),
		ok("int256 min", i256, x(new(big.Int).Neg(pow2(255, 0)).String()), new(big.Int).Neg(pow2(255, 0))),
		ok("int256 max", i256, x(pow2(255, -1).String()), pow2(255, -1)),
		bad("int256 min-1", i256, x(new(big.Int).Neg(pow2(255, 1)).String()), mustX("int256")),
		bad("int256 max+1", i256, x(pow2(255, 0).String()), mustX("int256")),
		ok("int256 -1e3", i256, x(`-1e3`), big.NewInt(-1000)),

		// address.
		ok("address lowercase", frag1("address"), x(`"`+addrLower+`"`), addr(addrLower)),
		ok("address uppercase", frag1("address"), x(`"`+addrUpper+`"`), addr(addrLower)),
		ok("address checksum", frag1("address"), x(`"`+addrChecksum+`"`), addr(addrLower)),
		ok("address checksum 2", frag1("address"), x(`"`+addr2+`"`), addr(addr2)),
		bad("address bad checksum", frag1("address"), x(`"`+addrBadSum+`"`), mustX("address")),
		bad("address no 0x", frag1("address"), x(`"`+addrLower[2:]+`"`), mustX("address")),
		bad("address 0X prefix", frag1("address"), x(`"0X`+addrLower[2:]+`"`), mustX("address")),
		bad("address 39 digits", frag1("address"), x(`"`+addrLower[:41]+`"`), mustX("address")),
		bad("address 41 digits", frag1("address"), x(`"`+addrLower+`0"`), mustX("address")),
		bad("address non-hex", frag1("address"), x(`"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"`), mustX("address")),
		bad("address as number", frag1("address"), x(`1`), mustX("address")),
		bad("address null", frag1("address"), x(`null`), mustX("address")),

		// bool and string.
		ok("bool true", frag1("bool"), x(`true`), true),
		ok("bool false", frag1("bool"), x(`false`), false),
		bad("bool as string", frag1("bool"), x(`"true"`), mustX("bool")),
		bad("bool as number", frag1("bool"), x(`1`), mustX("bool")),
		bad("bool null", frag1("bool"), x(`null`), mustX("bool")),
		ok("string", frag1("string"), x(`"hello"`), "hello"),
		ok("string empty", frag1("string"), x(`""`), ""),
		ok("string unicode", frag1("string"), x(`"héllo ✓"`), "héllo ✓"),
		ok("string escapes", frag1("string"), x(`"a\"b\u00e9\n"`), "a\"bé\n"),
		ok("string surrogate pair", frag1("string"), x(`"\ud83d\ude00"`), "😀"),
		bad("string as number", frag1("string"), x(`5`), mustX("string")),
		bad("string null", frag1("string"), x(`null`), mustX("string")),
		bad("string array", frag1("string"), x(`["a"]`), mustX("string")),

		// bytes, bytesN, function.
		ok("bytes empty", frag1("bytes"), x(`"0x"`), []byte{}),
		ok("bytes", frag1("bytes"), x(`"0xdeadbeef"`), hexb("deadbeef")),
		ok("bytes upper hex", frag1("bytes"), x(`"0xDEADBEEF"`), hexb("deadbeef")),
		ok("bytes longer than a word", frag1("bytes"), x(`"`+hex32+`ff"`), hexb(hex32[2:]+"ff")),
		bad("bytes odd digits", frag1("bytes"), x(`"0xabc"`), mustX("bytes")),
		bad("bytes no prefix", frag1("bytes"), x(`"deadbeef"`), mustX("bytes")),
		bad("bytes non-hex", frag1("bytes"), x(`"0xzz"`), mustX("bytes")),
		bad("bytes empty string", frag1("bytes"), x(`""`), mustX("bytes")),
		bad("bytes as array", frag1("bytes"), x(`[1,2]`), mustX("bytes")),
		ok("bytes32", frag1("bytes32"), x(`"`+hex32+`"`), b32(hex32)),
		bad("bytes32 31 bytes", frag1("bytes32"), x(`"`+hex32[:64]+`"`), mustX("bytes32")),
		bad("bytes32 33 bytes", frag1("bytes32"), x(`"`+hex32+`00"`), mustX("bytes32")),
		bad("bytes32 empty", frag1("bytes32"), x(`"0x"`), mustX("bytes32")),
		bad("bytes32 odd", frag1("bytes32"), x(`"`+hex32[:65]+`"`), mustX("bytes32")),
		ok("bytes1", frag1("bytes1"), x(`"0xff"`), [1]byte{0xff}),
		bad("bytes1 empty", frag1("bytes1"), x(`"0x"`), mustX("bytes1")),
		ok("bytes4", frag1("bytes4"), x(`"0xa9059cbb"`), [4]byte{0xa9, 0x05, 0x9c, 0xbb}),
		ok("function", frag1("function"), x(`"`+hex24+`"`), [24]byte(hexb(hex24))),
		bad("function 20 bytes", frag1("function"), x(`"`+addrLower+`"`), mustX("function")),

		// Fixed, dynamic and nested arrays.
		ok("uint256[3]", frag1("uint256[3]"), x(`[1,"2","0x3"]`), [3]*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3)}),
		bad("uint256[3] too short", frag1("uint256[3]"), x(`[1,2]`), mustX("uint256[3]")),
		bad("uint256[3] too long", frag1("uint256[3]"), x(`[1,2,3,4]`), mustX("uint256[3]")),
		bad("uint256[3] bad element", frag1("uint256[3]"), x(`[1,"x",3]`), "argument 'x[1]' must be of type uint256"),
		bad("uint256[3] as object", frag1("uint256[3]"), x(`{"0":1}`), mustX("uint256[3]")),
		ok("uint256[] empty", frag1("uint256[]"), x(`[]`), []*big.Int{}),
		ok("uint256[]", frag1("uint256[]"), x(`[1,2,3]`), []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3)}),
		bad("uint256[] negative element", frag1("uint256[]"), x(`[1,-1]`), "argument 'x[1]' must be of type uint256"),
		bad("uint256[] null", frag1("uint256[]"), x(`null`), mustX("uint256[]")),
		bad("uint256[] scalar", frag1("uint256[]"), x(`1`), mustX("uint256[]")),
		bad("uint256[] first bad element wins", frag1("uint256[]"), x(`[1,true,-1]`), "argument 'x[1]' must be of type uint256"),
		ok("uint8[] native elements", frag1("uint8[]"), x(`[0,255]`), []uint8{0, 255}),
		ok("uint256[][2]", frag1("uint256[][2]"), x(`[[1,2],[]]`), [2][]*big.Int{{big.NewInt(1), big.NewInt(2)}, {}}),
		bad("uint256[][2] one row", frag1("uint256[][2]"), x(`[[1]]`), mustX("uint256[][2]")),
		bad("uint256[][2] row not array", frag1("uint256[][2]"), x(`[[1],5]`), "argument 'x[1]' must be of type uint256[]"),
		bad("uint256[][2] deep element", frag1("uint256[][2]"), x(`[[1],[2,"a"]]`), "argument 'x[1][1]' must be of type uint256"),
		ok("uint8[2][]", frag1("uint8[2][]"), x(`[[1,2],[3,4]]`), [][2]uint8{{1, 2}, {3, 4}}),
		bad("uint8[2][] short row", frag1("uint8[2][]"), x(`[[1,2],[3]]`), "argument 'x[1]' must be of type uint8[2]"),
		bad("uint8[2][] element out of range", frag1("uint8[2][]"), x(`[[1,2],[3,256]]`), "argument 'x[1][1]' must be of type uint8"),
		ok("address[2]", frag1("address[2]"), x(`["`+addrChecksum+`","`+addr2+`"]`), [2]common.Address{addr(addrLower), addr(addr2)}),
		bad("address[2] bad checksum", frag1("address[2]"), x(`["`+addrChecksum+`","`+addrBadSum+`"]`), "argument 'x[1]' must be of type address"),
		ok("string[]", frag1("string[]"), x(`["a","",""]`), []string{"a", "", ""}),
		ok("bytes[2]", frag1("bytes[2]"), x(`["0x01","0x"]`), [2][]byte{{1}, {}}),
		ok("bool[][]", frag1("bool[][]"), x(`[[true],[],[false,true]]`), [][]bool{{true}, {}, {false, true}}),
		bad("bool[][] bad leaf", frag1("bool[][]"), x(`[[true],[],[false,0]]`), "argument 'x[2][1]' must be of type bool"),

		// Tuples.
		ok("tuple", fragOrder, `{"order":{"buyer":"`+addrChecksum+`","price":"1000"}}`, tOrder{addr(addrLower), big.NewInt(1000)}),
		ok("tuple members in any order", fragOrder, `{"order":{"price":1000,"buyer":"`+addrLower+`"}}`, tOrder{addr(addrLower), big.NewInt(1000)}),
		bad("tuple missing member", fragOrder, `{"order":{"buyer":"`+addrLower+`"}}`, "argument 'order.price' is missing"),
		bad("tuple misspelt member", fragOrder, `{"order":{"buyer":"`+addrLower+`","prize":1}}`, "argument 'order.price' is missing"),
		bad("tuple extra member", fragOrder, `{"order":{"buyer":"`+addrLower+`","price":1,"foo":2}}`, "argument 'order.foo' is not a member of (address,uint256)"),
		bad("tuple duplicate member", fragOrder, `{"order":{"buyer":"`+addrLower+`","price":1,"price":2}}`, "argument 'order.price' is given twice"),
		bad("tuple as array", fragOrder, `{"order":["`+addrLower+`",1]}`, "argument 'order' must be of type (address,uint256)"),
		bad("tuple null", fragOrder, `{"order":null}`, "argument 'order' must be of type (address,uint256)"),
		bad("tuple bad member", fragOrder, `{"order":{"buyer":"`+addrLower+`","price":-5}}`, "argument 'order.price' must be of type uint256"),
		bad("tuple first bad member in ABI order", fragOrder, `{"order":{"price":-5,"buyer":"nope"}}`, "argument 'order.buyer' must be of type address"),
		bad("tuple odd member key is escaped", fragOrder, `{"order":{"buyer":"`+addrLower+`","price":1,"it's\n":2}}`, `argument 'order.it\'s\n' is not a member of (address,uint256)`),
		ok("array of tuples with nested tuple array", fragOrders,
			`{"orders":[{"buyer":"`+addrLower+`","items":[{"id":1,"tags":[]},{"id":"2","tags":["`+hex32+`"]}]},{"buyer":"`+addr2+`","items":[]}]}`,
			[]tOrders{{addr(addrLower), []tItem{{big.NewInt(1), [][32]byte{}}, {big.NewInt(2), [][32]byte{b32(hex32)}}}}, {addr(addr2), []tItem{}}}),
		bad("array of tuples deep bad value", fragOrders,
			`{"orders":[{"buyer":"`+addrLower+`","items":[{"id":1,"tags":[]},{"id":2,"tags":[]},{"id":-3,"tags":[]}]}]}`,
			"argument 'orders[0].items[2].id' must be of type uint256"),
		bad("array of tuples deep missing member", fragOrders,
			`{"orders":[{"buyer":"`+addrLower+`","items":[]},{"buyer":"`+addrLower+`","items":[{"id":1}]}]}`,
			"argument 'orders[1].items[0].tags' is missing"),
		bad("array of tuples deep bad bytes32", fragOrders,
			`{"orders":[{"buyer":"`+addrLower+`","items":[{"id":1,"tags":["0x01"]}]}]}`,
			"argument 'orders[0].items[0].tags[0]' must be of type bytes32"),
		bad("array of tuples element not object", fragOrders, `{"orders":[1]}`,
			"argument 'orders[0]' must be of type (address,(uint256,bytes32[])[])"),
		bad("array of tuples not array", fragOrders, `{"orders":{}}`,
			"argument 'orders' must be of type (address,(uint256,bytes32[])[])[]"),

		// Top level: counts, names, duplicates, kind.
		{name: "transfer", frag: fragTransfer, args: `{"to":"` + addrChecksum + `","amount":"1000000"}`, want: transferWant},
		{name: "transfer keys in any order", frag: fragTransfer, args: `{"amount":1000000,"to":"` + addrChecksum + `"}`, want: transferWant},
		{name: "escaped key", frag: fragTransfer, args: `{"t\u006f":"` + addrChecksum + `","amount":1e6}`, want: transferWant},
		bad("too few arguments", fragTransfer, `{"to":"`+addrChecksum+`"}`, "2 arguments required, 1 given"),
		bad("no arguments", fragTransfer, `{}`, "2 arguments required, 0 given"),
		bad("null arguments", fragTransfer, `null`, "2 arguments required, 0 given"),
		bad("too many arguments", fragTransfer, `{"to":"`+addrChecksum+`","amount":1,"memo":"x"}`, "2 arguments required, 3 given"),
		bad("misspelt argument", fragTransfer, `{"to":"`+addrChecksum+`","amout":1}`, "argument 'amount' is missing"),
		bad("first missing in ABI order", fragTransfer, `{"b":1,"a":2}`, "argument 'to' is missing"),
		bad("duplicate key", fragTransfer, `{"to":"`+addrChecksum+`","to":"`+addrChecksum+`"}`, "argument 'to' is given twice"),
		bad("duplicate key beats count", fragTransfer, `{"amount":1,"amount":2,"to":"`+addrChecksum+`"}`, "argument 'amount' is given twice"),
		bad("first bad value in input order", fragTransfer, `{"amount":-1,"to":"nope"}`, "argument 'to' must be of type address"),
		bad("array instead of object", fragTransfer, `["`+addrChecksum+`",1]`, "function_args must be a JSON object"),
		bad("string instead of object", fragTransfer, `"to"`, "function_args must be a JSON object"),
		bad("number instead of object", fragTransfer, `1`, "function_args must be a JSON object"),
		bad("invalid JSON", fragTransfer, `{"to":`, "function_args must be a JSON object"),
		bad("trailing garbage", fragTransfer, `{} {}`, "function_args must be a JSON object"),
		{name: "no inputs, empty object", frag: fragPing, args: `{}`, want: []any{}},
		{name: "no inputs, null", frag: fragPing, args: `null`, want: []any{}},
		{name: "no inputs, nothing", frag: fragPing, args: ``, want: []any{}},
		{name: "no inputs, whitespace", frag: fragPing, args: " \n", want: []any{}},
		bad("no inputs, one given", fragPing, `{"a":1}`, "0 arguments required, 1 given"),
		bad("no inputs, array", fragPing, `[]`, "function_args must be a JSON object"),

		// Everything at once.
		{name: "kitchen sink", frag: fragKitchen, args: kitchenArgs, want: kitchenWant()},
		{name: "kitchen sink bad nested tuple", frag: fragKitchen,
			args: strings.Replace(kitchenArgs, `"tag": "0xa9059cbb"`, `"tag": "0xa9059c"`, 1), err: "argument 'order.meta.tag' must be of type bytes4"},
	}
	return append(cases, limitCases()...)
}

// limitCases are calls at the MaxCalldata limit: for each shape, the longest call that fits
// (131044 bytes, the selector and 4095 words: TestCalldataSize checks the length) and the same
// call one word longer. A call that is too long is refused before its values are checked.
func limitCases() []argCase {
	ones := func(n int) (string, []*big.Int) { // [1,1,...] and its values
		v := make([]*big.Int, n)
		for i := range v {
			v[i] = big.NewInt(1)
		}
		return x("[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]"), v
	}
	// notes returns n-1 notes with an empty memo and a last one with a memo of m bytes.
	notes := func(n, m int) (string, []tNote) {
		v := make([]tNote, n)
		elems := make([]string, n)
		for i := range v {
			v[i] = tNote{big.NewInt(int64(i)), ""}
			if i == n-1 {
				v[i].Memo = strings.Repeat("m", m)
			}
			elems[i] = fmt.Sprintf(`{"id":%d,"memo":%q}`, i, v[i].Memo)
		}
		return `{"notes":[` + strings.Join(elems, ",") + `]}`, v
	}
	u256s := frag1("uint256[]")
	// uint256[]: selector, offset, length, then a word per element.
	underInts, underVals := ones(4093)
	overInts, _ := ones(4094)
	// bytes and string: selector, offset, length, then the data padded to whole words.
	bs := strings.Repeat("ab", 130976)
	// (uint256,string)[]: selector, offset, length; per note an offset, the id, the memo's
	// offset and length, then the memo's words.
	underNotes, underNoteVals := notes(1023, 32)
	overNotes, _ := notes(1023, 33)
	return []argCase{
		{name: "calldata limit, just under: uint256[]", frag: u256s, args: underInts, want: []any{underVals}},
		{name: "calldata limit, just over: uint256[]", frag: u256s, args: overInts, err: tooLong},
		{name: "calldata limit, just under: bytes", frag: frag1("bytes"), args: x(`"0x` + bs + `"`), want: []any{hexb(bs)}},
		{name: "calldata limit, just over: bytes", frag: frag1("bytes"), args: x(`"0x` + bs + `ab"`), err: tooLong},
		{name: "calldata limit, just under: string", frag: frag1("string"), args: x(`"` + bs[:130976] + `"`), want: []any{bs[:130976]}},
		{name: "calldata limit, just over: string", frag: frag1("string"), args: x(`"` + bs[:130977] + `"`), err: tooLong},
		{name: "calldata limit, just under: tuple[] with a string", frag: fragNotes, args: underNotes, want: []any{underNoteVals}},
		{name: "calldata limit, just over: tuple[] with a string", frag: fragNotes, args: overNotes, err: tooLong},
		// The size is checked before the values: a call too long is refused even with bad
		// values, and an array of static elements is counted as its type says.
		{name: "calldata limit, just over with a bad element", frag: u256s, args: strings.Replace(overInts, "1", "-1", 1), err: tooLong},
		{name: "calldata limit, just under with a bad element", frag: u256s, args: strings.Replace(underInts, "1", "-1", 1),
			err: "argument 'x[0]' must be of type uint256"},
		{name: "calldata limit, static type just under", frag: frag1("uint256[4095]"), args: x(`1`), err: "argument 'x' must be of type uint256[4095]"},
		{name: "calldata limit, static type just over", frag: frag1("bytes32[4096]"), args: x(`1`), err: tooLong},
	}
}

var transferWant = []any{addr(addrLower), big.NewInt(1000000)}

const kitchenArgs = `{
	"u8": 255, "u256": "` + maxU256 + `", "i64": -9223372036854775808, "i256": "-1", "u24": "0xffffff",
	"a": "` + addrChecksum + `", "b": true, "s": "héllo", "bs": "0xdeadbeef", "b32": "` + hex32 + `", "b1": "0x01",
	"fn": "` + hex24 + `", "ids": [1, 2, 3e3], "pair": ["` + addrLower + `", "` + addr2 + `"], "grid": [[1], [2, 3]],
	"order": {"buyer": "` + addr2 + `", "ids": [], "meta": {"tag": "0xa9059cbb", "note": "gift"}},
	"items": [{"id": 7, "qty": 65535}, {"qty": 1, "id": "18446744073709551615"}]
}`

func kitchenWant() []any {
	return []any{
		uint8(255), pow2(256, -1), int64(-9223372036854775808), big.NewInt(-1), big.NewInt(0xffffff),
		addr(addrLower), true, "héllo", hexb("deadbeef"), b32(hex32), [1]byte{1},
		[24]byte(hexb(hex24)), []*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3000)},
		[2]common.Address{addr(addrLower), addr(addr2)},
		[2][]*big.Int{{big.NewInt(1)}, {big.NewInt(2), big.NewInt(3)}},
		kOrder{addr(addr2), []*big.Int{}, kMeta{[4]byte{0xa9, 0x05, 0x9c, 0xbb}, "gift"}},
		[]kItem{{7, 65535}, {18446744073709551615, 1}},
	}
}

func TestArguments(t *testing.T) {
	t.Parallel()
	for _, tt := range argCases() {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.frag)
			got, err := f.Encode([]byte(tt.args))
			vals, verr := f.Values([]byte(tt.args))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Encode(%s) succeeded, want error %q", tt.args, tt.err)
				}
				checkArgsErr(t, err, tt.err)
				checkArgsErr(t, verr, tt.err)
				return
			}
			if err != nil {
				t.Fatalf("Encode(%s): %v", tt.args, err)
			}
			if verr != nil {
				t.Fatalf("Values(%s): %v", tt.args, verr)
			}
			if len(vals) != len(f.Inputs()) {
				t.Fatalf("Values returned %d values for %d inputs", len(vals), len(f.Inputs()))
			}
			want := tt.want
			// Where the hand-built value is already of go-ethereum's type, Values must give that type.
			for i := range want {
				if !hasStruct(reflect.TypeOf(want[i])) && reflect.TypeOf(vals[i]) != reflect.TypeOf(want[i]) {
					t.Errorf("Values()[%d] is a %T, want %T", i, vals[i], want[i])
				}
			}
			packed, err := f.Method().Inputs.Pack(want...)
			if err != nil {
				t.Fatalf("go-ethereum Pack of the hand-built values: %v", err)
			}
			sel := f.Selector()
			wantData := append(sel[:], packed...)
			if !bytes.Equal(got, wantData) {
				t.Errorf("calldata:\n got %x\nwant %x", got, wantData)
			}
		})
	}
}

func hasStruct(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return t != reflect.TypeOf(big.Int{})
	case reflect.Array, reflect.Slice, reflect.Pointer:
		return hasStruct(t.Elem())
	}
	return false
}

func checkArgsErr(t *testing.T, err error, want string) {
	t.Helper()
	var re *rampway.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *rampway.Error", err, err)
	}
	if re.Code != rampway.EFUNCARGS {
		t.Errorf("code = %q, want %q (%v)", re.Code, rampway.EFUNCARGS, err)
	}
	if re.Message != wantPrefix+want {
		t.Errorf("message:\n got %q\nwant %q", re.Message, wantPrefix+want)
	}
}

// TestEncodeKnownCalldata checks calldata against bytes worked out by hand, independently of
// go-ethereum's encoder.
func TestEncodeKnownCalldata(t *testing.T) {
	t.Parallel()
	word := func(hexDigits string) string { return strings.Repeat("0", 64-len(hexDigits)) + hexDigits }
	tests := []struct {
		name, frag, args string
		sel              string // expected selector; "" for the Function's own (checked elsewhere)
		want             string // expected encoded arguments
	}{
		{"erc20 transfer", fragTransfer, `{"to":"` + addrChecksum + `","amount":1e6}`,
			"a9059cbb", word(addrLower[2:]) + word("f4240")},
		{"int8 -1 is sign-extended", fragN("g", "x int8"), x(`-1`), "", strings.Repeat("f", 64)},
		{"dynamic array", fragN("g", "x uint256[]"), x(`[1,"0x2"]`), "",
			word("20") + word("2") + word("1") + word("2")},
		{"string", fragN("g", "x string"), x(`"hi"`), "",
			word("20") + word("2") + "6869" + strings.Repeat("0", 60)},
		{"bytes4 is left-aligned", fragN("g", "x bytes4"), x(`"0xa9059cbb"`), "",
			"a9059cbb" + strings.Repeat("0", 56)},
		{"static tuple inline", fragOrder, `{"order":{"buyer":"` + addrLower + `","price":"0x10"}}`, "",
			word(addrLower[2:]) + word("10")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.frag)
			got, err := f.Encode([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			sel := f.Selector()
			if tt.sel != "" && hex.EncodeToString(sel[:]) != tt.sel {
				t.Errorf("selector = %x, want %s", sel, tt.sel)
			}
			if want := hex.EncodeToString(sel[:]) + tt.want; hex.EncodeToString(got) != want {
				t.Errorf("calldata:\n got %x\nwant %s", got, want)
			}
		})
	}
}

func TestValuesGoTypes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, arg string
		want     reflect.Type
	}{
		{"uint8", `1`, reflect.TypeOf(uint8(0))},
		{"uint16", `1`, reflect.TypeOf(uint16(0))},
		{"uint24", `1`, reflect.TypeOf((*big.Int)(nil))},
		{"uint32", `1`, reflect.TypeOf(uint32(0))},
		{"uint64", `1`, reflect.TypeOf(uint64(0))},
		{"uint72", `1`, reflect.TypeOf((*big.Int)(nil))},
		{"uint256", `1`, reflect.TypeOf((*big.Int)(nil))},
		{"int8", `1`, reflect.TypeOf(int8(0))},
		{"int16", `1`, reflect.TypeOf(int16(0))},
		{"int32", `1`, reflect.TypeOf(int32(0))},
		{"int48", `1`, reflect.TypeOf((*big.Int)(nil))},
		{"int64", `1`, reflect.TypeOf(int64(0))},
		{"int256", `1`, reflect.TypeOf((*big.Int)(nil))},
		{"address", `"` + addrLower + `"`, reflect.TypeOf(common.Address{})},
		{"bytes", `"0x"`, reflect.TypeOf([]byte(nil))},
		{"bytes32", `"` + hex32 + `"`, reflect.TypeOf([32]byte{})},
		{"function", `"` + hex24 + `"`, reflect.TypeOf([24]byte{})},
		{"uint16[2]", `[1,2]`, reflect.TypeOf([2]uint16{})},
		{"int64[][3]", `[[],[],[]]`, reflect.TypeOf([3][]int64{})},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			vals, err := mustParse(t, frag1(tt.typ)).Values([]byte(x(tt.arg)))
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.TypeOf(vals[0]); got != tt.want {
				t.Errorf("Values()[0] is a %v, want %v", got, tt.want)
			}
		})
	}
	// A tuple becomes go-ethereum's own struct type for it.
	f := mustParse(t, fragOrder)
	vals, err := f.Values([]byte(`{"order":{"buyer":"` + addrLower + `","price":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reflect.TypeOf(vals[0]), f.Method().Inputs[0].Type.TupleType; got != want {
		t.Errorf("tuple value is a %v, want %v", got, want)
	}
}

// TestDeterministicErrors checks that an invalid call gives the same message every time (no
// map-order dependence).
func TestDeterministicErrors(t *testing.T) {
	t.Parallel()
	f := mustParse(t, fragKitchen)
	args := strings.NewReplacer(`"u8": 255`, `"u8": 256`, `"qty": 1,`, `"qty": -1,`).Replace(kitchenArgs)
	var first string
	for i := 0; i < 50; i++ {
		_, err := f.Encode([]byte(args))
		if err == nil {
			t.Fatal("Encode succeeded")
		}
		if i == 0 {
			first = err.Error()
			if !strings.Contains(first, "argument 'u8' must be of type uint8") {
				t.Fatalf("first error = %v", err)
			}
		} else if err.Error() != first {
			t.Fatalf("error changed: %q then %q", first, err.Error())
		}
	}
	// Many unknown keys in a tuple: the first in document order is named.
	var b strings.Builder
	b.WriteString(`{"order":{"buyer":"` + addrLower + `","price":1`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`}}`)
	_, err := mustParse(t, fragOrder).Encode([]byte(b.String()))
	checkArgsErr(t, err, "argument 'order.k0' is not a member of (address,uint256)")
	// Many keys with a late duplicate, past the linear-scan size.
	b.Reset()
	b.WriteString(`{`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"k7":1}`)
	_, err = mustParse(t, fragTransfer).Encode([]byte(b.String()))
	checkArgsErr(t, err, "argument 'k7' is given twice")
}

func TestPackFailureIsInternal(t *testing.T) {
	t.Parallel()
	f := mustParse(t, fragTransfer)
	// Values that skipped validation: go-ethereum refuses a negative uint256.
	_, err := f.pack([]any{addr(addrLower), big.NewInt(-1)})
	var re *rampway.Error
	if !errors.As(err, &re) || re.Code != rampway.EINTERNAL || re.Err == nil {
		t.Fatalf("pack error = %#v, want EINTERNAL wrapping the cause", err)
	}
	if strings.Contains(re.Message, "abi") {
		t.Errorf("message %q leaks go-ethereum's text", re.Message)
	}
	// A panic inside go-ethereum is caught too.
	_, err = f.pack([]any{addr(addrLower), "not a number"})
	if rampway.ErrorCode(err) != rampway.EINTERNAL {
		t.Fatalf("pack error = %v, want EINTERNAL", err)
	}
}
