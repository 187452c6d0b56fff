// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// Multicall3Call is an auto generated low-level Go binding around an user-defined struct.
type Multicall3Call struct {
	Target   common.Address
	CallData []byte
}

// Multicall3Call3 is an auto generated low-level Go binding around an user-defined struct.
type Multicall3Call3 struct {
	Target       common.Address
	AllowFailure bool
	CallData     []byte
}

// Multicall3Call3Value is an auto generated low-level Go binding around an user-defined struct.
type Multicall3Call3Value struct {
	Target       common.Address
	AllowFailure bool
	Value        *big.Int
	CallData     []byte
}

// Multicall3Result is an auto generated low-level Go binding around an user-defined struct.
type Multicall3Result struct {
	Success    bool
	ReturnData []byte
}

// Multicall3MetaData contains all meta data concerning the Multicall3 contract.
var Multicall3MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"aggregate\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"blockNumber\",\"type\":\"uint256\"},{\"internalType\":\"bytes[]\",\"name\":\"returnData\",\"type\":\"bytes[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"allowFailure\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call3[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"aggregate3\",\"outputs\":[{\"components\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Result[]\",\"name\":\"returnData\",\"type\":\"tuple[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"allowFailure\",\"type\":\"bool\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call3Value[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"aggregate3Value\",\"outputs\":[{\"components\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Result[]\",\"name\":\"returnData\",\"type\":\"tuple[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"blockAndAggregate\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"blockNumber\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"blockHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Result[]\",\"name\":\"returnData\",\"type\":\"tuple[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getBasefee\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"basefee\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"blockNumber\",\"type\":\"uint256\"}],\"name\":\"getBlockHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"blockHash\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getBlockNumber\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"blockNumber\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getChainId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"chainid\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getCurrentBlockCoinbase\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"coinbase\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getCurrentBlockDifficulty\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"difficulty\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getCurrentBlockGasLimit\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"gaslimit\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getCurrentBlockTimestamp\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"timestamp\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"addr\",\"type\":\"address\"}],\"name\":\"getEthBalance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getLastBlockHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"blockHash\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bool\",\"name\":\"requireSuccess\",\"type\":\"bool\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"tryAggregate\",\"outputs\":[{\"components\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Result[]\",\"name\":\"returnData\",\"type\":\"tuple[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bool\",\"name\":\"requireSuccess\",\"type\":\"bool\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"callData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"tryBlockAndAggregate\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"blockNumber\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"blockHash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"},{\"internalType\":\"bytes\",\"name\":\"returnData\",\"type\":\"bytes\"}],\"internalType\":\"structMulticall3.Result[]\",\"name\":\"returnData\",\"type\":\"tuple[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"}]",
	ID:  "Multicall3",
	Bin: "0x6080604052348015600e575f5ffd5b50610ccd8061001c5f395ff3fe6080604052600436106100ef575f3560e01c80634d2301cc11610087578063a8b0574e11610057578063a8b0574e14610221578063bce38bd71461023b578063c3077fa91461024e578063ee82ac5e14610261575f5ffd5b80634d2301cc146101c357806372425d9d146101ea57806382ad56cb146101fc57806386d516e81461020f575f5ffd5b80633408e470116100c25780633408e4701461016b578063399542e91461017d5780633e64a6961461019f57806342cbb15c146101b1575f5ffd5b80630f28c97d146100f3578063174dea7114610114578063252dba421461013457806327e86d6e14610155575b5f5ffd5b3480156100fe575f5ffd5b50425b6040519081526020015b60405180910390f35b61012761012236600461096e565b61027f565b60405161010b9190610a4e565b61014761014236600461096e565b610472565b60405161010b929190610a67565b348015610160575f5ffd5b50435f190140610101565b348015610176575f5ffd5b5046610101565b61019061018b366004610ae5565b6105db565b60405161010b93929190610b34565b3480156101aa575f5ffd5b5048610101565b3480156101bc575f5ffd5b5043610101565b3480156101ce575f5ffd5b506101016101dd366004610b5b565b6001600160a01b03163190565b3480156101f5575f5ffd5b5044610101565b61012761020a36600461096e565b6105f6565b34801561021a575f5ffd5b5045610101565b34801561022c575f5ffd5b5060405141815260200161010b565b610127610249366004610ae5565b610772565b61019061025c36600461096e565b610908565b34801561026c575f5ffd5b5061010161027b366004610b81565b4090565b60605f8267ffffffffffffffff81111561029b5761029b610b98565b6040519080825280602002602001820160405280156102e057816020015b604080518082019091525f8152606060208201528152602001906001900390816102b95790505b5091505f5b8381101561041b573685858381811061030057610300610bac565b90506020028101906103129190610bc0565b9050610322604082013584610bde565b92505f806103336020840184610b5b565b6001600160a01b0316604084013561034e6060860186610c03565b60405161035c929190610c46565b5f6040518083038185875af1925050503d805f8114610396576040519150601f19603f3d011682016040523d82523d5f602084013e61039b565b606091505b509150915081806103b757506103b76040840160208501610c55565b6103dc5760405162461bcd60e51b81526004016103d390610c6e565b60405180910390fd5b604051806040016040528083151581526020018281525086858151811061040557610405610bac565b60209081029190910101525050506001016102e5565b5080341461046b5760405162461bcd60e51b815260206004820152601a60248201527f4d756c746963616c6c333a2076616c7565206d69736d6174636800000000000060448201526064016103d3565b5092915050565b4360608267ffffffffffffffff81111561048e5761048e610b98565b6040519080825280602002602001820160405280156104c157816020015b60608152602001906001900390816104ac5790505b5090505f5b838110156105d3575f5f8686848181106104e2576104e2610bac565b90506020028101906104f49190610ca5565b610502906020810190610b5b565b6001600160a01b031687878581811061051d5761051d610bac565b905060200281019061052f9190610ca5565b61053d906020810190610c03565b60405161054b929190610c46565b5f604051808303815f865af19150503d805f8114610584576040519150601f19603f3d011682016040523d82523d5f602084013e610589565b606091505b5091509150816105ab5760405162461bcd60e51b81526004016103d390610c6e565b808484815181106105be576105be610bac565b602090810291909101015250506001016104c6565b509250929050565b43804060606105eb868686610772565b905093509350939050565b60608167ffffffffffffffff81111561061157610611610b98565b60405190808252806020026020018201604052801561065657816020015b604080518082019091525f81526060602082015281526020019060019003908161062f5790505b5090505f5b8281101561046b573684848381811061067657610676610bac565b90506020028101906106889190610cb9565b90505f806106996020840184610b5b565b6001600160a01b03166106af6040850185610c03565b6040516106bd929190610c46565b5f604051808303815f865af19150503d805f81146106f6576040519150601f19603f3d011682016040523d82523d5f602084013e6106fb565b606091505b5091509150818061071757506107176040840160208501610c55565b6107335760405162461bcd60e51b81526004016103d390610c6e565b604051806040016040528083151581526020018281525085858151811061075c5761075c610bac565b602090810291909101015250505060010161065b565b60608167ffffffffffffffff81111561078d5761078d610b98565b6040519080825280602002602001820160405280156107d257816020015b604080518082019091525f8152606060208201528152602001906001900390816107ab5790505b5090505f5b82811015610900575f5f8585848181106107f3576107f3610bac565b90506020028101906108059190610ca5565b610813906020810190610b5b565b6001600160a01b031686868581811061082e5761082e610bac565b90506020028101906108409190610ca5565b61084e906020810190610c03565b60405161085c929190610c46565b5f604051808303815f865af19150503d805f8114610895576040519150601f19603f3d011682016040523d82523d5f602084013e61089a565b606091505b509150915086156108c257816108c25760405162461bcd60e51b81526004016103d390610c6e565b60405180604001604052808315158152602001828152508484815181106108eb576108eb610bac565b602090810291909101015250506001016107d7565b509392505050565b5f5f6060610918600186866105db565b919790965090945092505050565b5f5f83601f840112610936575f5ffd5b50813567ffffffffffffffff81111561094d575f5ffd5b6020830191508360208260051b8501011115610967575f5ffd5b9250929050565b5f5f6020838503121561097f575f5ffd5b823567ffffffffffffffff811115610995575f5ffd5b6109a185828601610926565b90969095509350505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b5f82825180855260208501945060208160051b830101602085015f5b83811015610a4257601f1985840301885281518051151584526020810151905060406020850152610a2b60408501826109ad565b6020998a01999094509290920191506001016109f7565b50909695505050505050565b602081525f610a6060208301846109db565b9392505050565b5f604082018483526040602084015280845180835260608501915060608160051b8601019250602086015f5b82811015610ac457605f19878603018452610aaf8583516109ad565b94506020938401939190910190600101610a93565b5092979650505050505050565b80358015158114610ae0575f5ffd5b919050565b5f5f5f60408486031215610af7575f5ffd5b610b0084610ad1565b9250602084013567ffffffffffffffff811115610b1b575f5ffd5b610b2786828701610926565b9497909650939450505050565b838152826020820152606060408201525f610b5260608301846109db565b95945050505050565b5f60208284031215610b6b575f5ffd5b81356001600160a01b0381168114610a60575f5ffd5b5f60208284031215610b91575f5ffd5b5035919050565b634e487b7160e01b5f52604160045260245ffd5b634e487b7160e01b5f52603260045260245ffd5b5f8235607e19833603018112610bd4575f5ffd5b9190910192915050565b80820180821115610bfd57634e487b7160e01b5f52601160045260245ffd5b92915050565b5f5f8335601e19843603018112610c18575f5ffd5b83018035915067ffffffffffffffff821115610c32575f5ffd5b602001915036819003821315610967575f5ffd5b818382375f9101908152919050565b5f60208284031215610c65575f5ffd5b610a6082610ad1565b60208082526017908201527f4d756c746963616c6c333a2063616c6c206661696c6564000000000000000000604082015260600190565b5f8235603e19833603018112610bd4575f5ffd5b5f8235605e19833603018112610bd4575f5ffd",
}

// Multicall3 is an auto generated Go binding around an Ethereum contract.
type Multicall3 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Multicall3) GetABI() abi.ABI {
	return c.abi
}

// NewMulticall3 creates a new instance of Multicall3.
func NewMulticall3() *Multicall3 {
	parsed, err := Multicall3MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Multicall3{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Multicall3) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x252dba42.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function aggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes[] returnData)
func (multicall3 *Multicall3) PackAggregate(calls []Multicall3Call) []byte {
	enc, err := multicall3.abi.Pack("aggregate", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x252dba42.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function aggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes[] returnData)
func (multicall3 *Multicall3) TryPackAggregate(calls []Multicall3Call) ([]byte, error) {
	return multicall3.abi.Pack("aggregate", calls)
}

// AggregateOutput serves as a container for the return parameters of contract
// method Aggregate.
type AggregateOutput struct {
	BlockNumber *big.Int
	ReturnData  [][]byte
}

// UnpackAggregate is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x252dba42.
//
// Solidity: function aggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes[] returnData)
func (multicall3 *Multicall3) UnpackAggregate(data []byte) (AggregateOutput, error) {
	out, err := multicall3.abi.Unpack("aggregate", data)
	outstruct := new(AggregateOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.BlockNumber = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.ReturnData = *abi.ConvertType(out[1], new([][]byte)).(*[][]byte)
	return *outstruct, nil
}

// PackAggregate3 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x82ad56cb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function aggregate3((address,bool,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) PackAggregate3(calls []Multicall3Call3) []byte {
	enc, err := multicall3.abi.Pack("aggregate3", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAggregate3 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x82ad56cb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function aggregate3((address,bool,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) TryPackAggregate3(calls []Multicall3Call3) ([]byte, error) {
	return multicall3.abi.Pack("aggregate3", calls)
}

// UnpackAggregate3 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x82ad56cb.
//
// Solidity: function aggregate3((address,bool,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) UnpackAggregate3(data []byte) ([]Multicall3Result, error) {
	out, err := multicall3.abi.Unpack("aggregate3", data)
	if err != nil {
		return *new([]Multicall3Result), err
	}
	out0 := *abi.ConvertType(out[0], new([]Multicall3Result)).(*[]Multicall3Result)
	return out0, nil
}

// PackAggregate3Value is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x174dea71.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function aggregate3Value((address,bool,uint256,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) PackAggregate3Value(calls []Multicall3Call3Value) []byte {
	enc, err := multicall3.abi.Pack("aggregate3Value", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAggregate3Value is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x174dea71.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function aggregate3Value((address,bool,uint256,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) TryPackAggregate3Value(calls []Multicall3Call3Value) ([]byte, error) {
	return multicall3.abi.Pack("aggregate3Value", calls)
}

// UnpackAggregate3Value is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x174dea71.
//
// Solidity: function aggregate3Value((address,bool,uint256,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) UnpackAggregate3Value(data []byte) ([]Multicall3Result, error) {
	out, err := multicall3.abi.Unpack("aggregate3Value", data)
	if err != nil {
		return *new([]Multicall3Result), err
	}
	out0 := *abi.ConvertType(out[0], new([]Multicall3Result)).(*[]Multicall3Result)
	return out0, nil
}

// PackBlockAndAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc3077fa9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function blockAndAggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) PackBlockAndAggregate(calls []Multicall3Call) []byte {
	enc, err := multicall3.abi.Pack("blockAndAggregate", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBlockAndAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc3077fa9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function blockAndAggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) TryPackBlockAndAggregate(calls []Multicall3Call) ([]byte, error) {
	return multicall3.abi.Pack("blockAndAggregate", calls)
}

// BlockAndAggregateOutput serves as a container for the return parameters of contract
// method BlockAndAggregate.
type BlockAndAggregateOutput struct {
	BlockNumber *big.Int
	BlockHash   [32]byte
	ReturnData  []Multicall3Result
}

// UnpackBlockAndAggregate is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc3077fa9.
//
// Solidity: function blockAndAggregate((address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) UnpackBlockAndAggregate(data []byte) (BlockAndAggregateOutput, error) {
	out, err := multicall3.abi.Unpack("blockAndAggregate", data)
	outstruct := new(BlockAndAggregateOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.BlockNumber = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.BlockHash = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.ReturnData = *abi.ConvertType(out[2], new([]Multicall3Result)).(*[]Multicall3Result)
	return *outstruct, nil
}

// PackGetBasefee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3e64a696.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getBasefee() view returns(uint256 basefee)
func (multicall3 *Multicall3) PackGetBasefee() []byte {
	enc, err := multicall3.abi.Pack("getBasefee")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetBasefee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3e64a696.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getBasefee() view returns(uint256 basefee)
func (multicall3 *Multicall3) TryPackGetBasefee() ([]byte, error) {
	return multicall3.abi.Pack("getBasefee")
}

// UnpackGetBasefee is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3e64a696.
//
// Solidity: function getBasefee() view returns(uint256 basefee)
func (multicall3 *Multicall3) UnpackGetBasefee(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getBasefee", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetBlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xee82ac5e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getBlockHash(uint256 blockNumber) view returns(bytes32 blockHash)
func (multicall3 *Multicall3) PackGetBlockHash(blockNumber *big.Int) []byte {
	enc, err := multicall3.abi.Pack("getBlockHash", blockNumber)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetBlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xee82ac5e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getBlockHash(uint256 blockNumber) view returns(bytes32 blockHash)
func (multicall3 *Multicall3) TryPackGetBlockHash(blockNumber *big.Int) ([]byte, error) {
	return multicall3.abi.Pack("getBlockHash", blockNumber)
}

// UnpackGetBlockHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xee82ac5e.
//
// Solidity: function getBlockHash(uint256 blockNumber) view returns(bytes32 blockHash)
func (multicall3 *Multicall3) UnpackGetBlockHash(data []byte) ([32]byte, error) {
	out, err := multicall3.abi.Unpack("getBlockHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGetBlockNumber is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cbb15c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getBlockNumber() view returns(uint256 blockNumber)
func (multicall3 *Multicall3) PackGetBlockNumber() []byte {
	enc, err := multicall3.abi.Pack("getBlockNumber")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetBlockNumber is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cbb15c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getBlockNumber() view returns(uint256 blockNumber)
func (multicall3 *Multicall3) TryPackGetBlockNumber() ([]byte, error) {
	return multicall3.abi.Pack("getBlockNumber")
}

// UnpackGetBlockNumber is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42cbb15c.
//
// Solidity: function getBlockNumber() view returns(uint256 blockNumber)
func (multicall3 *Multicall3) UnpackGetBlockNumber(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getBlockNumber", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3408e470.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getChainId() view returns(uint256 chainid)
func (multicall3 *Multicall3) PackGetChainId() []byte {
	enc, err := multicall3.abi.Pack("getChainId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3408e470.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getChainId() view returns(uint256 chainid)
func (multicall3 *Multicall3) TryPackGetChainId() ([]byte, error) {
	return multicall3.abi.Pack("getChainId")
}

// UnpackGetChainId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3408e470.
//
// Solidity: function getChainId() view returns(uint256 chainid)
func (multicall3 *Multicall3) UnpackGetChainId(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getChainId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetCurrentBlockCoinbase is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa8b0574e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getCurrentBlockCoinbase() view returns(address coinbase)
func (multicall3 *Multicall3) PackGetCurrentBlockCoinbase() []byte {
	enc, err := multicall3.abi.Pack("getCurrentBlockCoinbase")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetCurrentBlockCoinbase is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa8b0574e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getCurrentBlockCoinbase() view returns(address coinbase)
func (multicall3 *Multicall3) TryPackGetCurrentBlockCoinbase() ([]byte, error) {
	return multicall3.abi.Pack("getCurrentBlockCoinbase")
}

// UnpackGetCurrentBlockCoinbase is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa8b0574e.
//
// Solidity: function getCurrentBlockCoinbase() view returns(address coinbase)
func (multicall3 *Multicall3) UnpackGetCurrentBlockCoinbase(data []byte) (common.Address, error) {
	out, err := multicall3.abi.Unpack("getCurrentBlockCoinbase", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackGetCurrentBlockDifficulty is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x72425d9d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getCurrentBlockDifficulty() view returns(uint256 difficulty)
func (multicall3 *Multicall3) PackGetCurrentBlockDifficulty() []byte {
	enc, err := multicall3.abi.Pack("getCurrentBlockDifficulty")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetCurrentBlockDifficulty is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x72425d9d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getCurrentBlockDifficulty() view returns(uint256 difficulty)
func (multicall3 *Multicall3) TryPackGetCurrentBlockDifficulty() ([]byte, error) {
	return multicall3.abi.Pack("getCurrentBlockDifficulty")
}

// UnpackGetCurrentBlockDifficulty is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x72425d9d.
//
// Solidity: function getCurrentBlockDifficulty() view returns(uint256 difficulty)
func (multicall3 *Multicall3) UnpackGetCurrentBlockDifficulty(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getCurrentBlockDifficulty", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetCurrentBlockGasLimit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x86d516e8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getCurrentBlockGasLimit() view returns(uint256 gaslimit)
func (multicall3 *Multicall3) PackGetCurrentBlockGasLimit() []byte {
	enc, err := multicall3.abi.Pack("getCurrentBlockGasLimit")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetCurrentBlockGasLimit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x86d516e8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getCurrentBlockGasLimit() view returns(uint256 gaslimit)
func (multicall3 *Multicall3) TryPackGetCurrentBlockGasLimit() ([]byte, error) {
	return multicall3.abi.Pack("getCurrentBlockGasLimit")
}

// UnpackGetCurrentBlockGasLimit is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x86d516e8.
//
// Solidity: function getCurrentBlockGasLimit() view returns(uint256 gaslimit)
func (multicall3 *Multicall3) UnpackGetCurrentBlockGasLimit(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getCurrentBlockGasLimit", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetCurrentBlockTimestamp is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0f28c97d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getCurrentBlockTimestamp() view returns(uint256 timestamp)
func (multicall3 *Multicall3) PackGetCurrentBlockTimestamp() []byte {
	enc, err := multicall3.abi.Pack("getCurrentBlockTimestamp")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetCurrentBlockTimestamp is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0f28c97d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getCurrentBlockTimestamp() view returns(uint256 timestamp)
func (multicall3 *Multicall3) TryPackGetCurrentBlockTimestamp() ([]byte, error) {
	return multicall3.abi.Pack("getCurrentBlockTimestamp")
}

// UnpackGetCurrentBlockTimestamp is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0f28c97d.
//
// Solidity: function getCurrentBlockTimestamp() view returns(uint256 timestamp)
func (multicall3 *Multicall3) UnpackGetCurrentBlockTimestamp(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getCurrentBlockTimestamp", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetEthBalance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4d2301cc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getEthBalance(address addr) view returns(uint256 balance)
func (multicall3 *Multicall3) PackGetEthBalance(addr common.Address) []byte {
	enc, err := multicall3.abi.Pack("getEthBalance", addr)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetEthBalance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4d2301cc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getEthBalance(address addr) view returns(uint256 balance)
func (multicall3 *Multicall3) TryPackGetEthBalance(addr common.Address) ([]byte, error) {
	return multicall3.abi.Pack("getEthBalance", addr)
}

// UnpackGetEthBalance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4d2301cc.
//
// Solidity: function getEthBalance(address addr) view returns(uint256 balance)
func (multicall3 *Multicall3) UnpackGetEthBalance(data []byte) (*big.Int, error) {
	out, err := multicall3.abi.Unpack("getEthBalance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetLastBlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x27e86d6e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getLastBlockHash() view returns(bytes32 blockHash)
func (multicall3 *Multicall3) PackGetLastBlockHash() []byte {
	enc, err := multicall3.abi.Pack("getLastBlockHash")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetLastBlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x27e86d6e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getLastBlockHash() view returns(bytes32 blockHash)
func (multicall3 *Multicall3) TryPackGetLastBlockHash() ([]byte, error) {
	return multicall3.abi.Pack("getLastBlockHash")
}

// UnpackGetLastBlockHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x27e86d6e.
//
// Solidity: function getLastBlockHash() view returns(bytes32 blockHash)
func (multicall3 *Multicall3) UnpackGetLastBlockHash(data []byte) ([32]byte, error) {
	out, err := multicall3.abi.Unpack("getLastBlockHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackTryAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbce38bd7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tryAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) PackTryAggregate(requireSuccess bool, calls []Multicall3Call) []byte {
	enc, err := multicall3.abi.Pack("tryAggregate", requireSuccess, calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTryAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbce38bd7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tryAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) TryPackTryAggregate(requireSuccess bool, calls []Multicall3Call) ([]byte, error) {
	return multicall3.abi.Pack("tryAggregate", requireSuccess, calls)
}

// UnpackTryAggregate is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbce38bd7.
//
// Solidity: function tryAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns((bool,bytes)[] returnData)
func (multicall3 *Multicall3) UnpackTryAggregate(data []byte) ([]Multicall3Result, error) {
	out, err := multicall3.abi.Unpack("tryAggregate", data)
	if err != nil {
		return *new([]Multicall3Result), err
	}
	out0 := *abi.ConvertType(out[0], new([]Multicall3Result)).(*[]Multicall3Result)
	return out0, nil
}

// PackTryBlockAndAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x399542e9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tryBlockAndAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) PackTryBlockAndAggregate(requireSuccess bool, calls []Multicall3Call) []byte {
	enc, err := multicall3.abi.Pack("tryBlockAndAggregate", requireSuccess, calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTryBlockAndAggregate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x399542e9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tryBlockAndAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) TryPackTryBlockAndAggregate(requireSuccess bool, calls []Multicall3Call) ([]byte, error) {
	return multicall3.abi.Pack("tryBlockAndAggregate", requireSuccess, calls)
}

// TryBlockAndAggregateOutput serves as a container for the return parameters of contract
// method TryBlockAndAggregate.
type TryBlockAndAggregateOutput struct {
	BlockNumber *big.Int
	BlockHash   [32]byte
	ReturnData  []Multicall3Result
}

// UnpackTryBlockAndAggregate is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x399542e9.
//
// Solidity: function tryBlockAndAggregate(bool requireSuccess, (address,bytes)[] calls) payable returns(uint256 blockNumber, bytes32 blockHash, (bool,bytes)[] returnData)
func (multicall3 *Multicall3) UnpackTryBlockAndAggregate(data []byte) (TryBlockAndAggregateOutput, error) {
	out, err := multicall3.abi.Unpack("tryBlockAndAggregate", data)
	outstruct := new(TryBlockAndAggregateOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.BlockNumber = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.BlockHash = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.ReturnData = *abi.ConvertType(out[2], new([]Multicall3Result)).(*[]Multicall3Result)
	return *outstruct, nil
}
