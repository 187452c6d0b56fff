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

// PriceFeedMetaData contains all meta data concerning the PriceFeed contract.
var PriceFeedMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"decimals_\",\"type\":\"uint8\"},{\"internalType\":\"string\",\"name\":\"description_\",\"type\":\"string\"},{\"internalType\":\"int256\",\"name\":\"initialAnswer\",\"type\":\"int256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"OwnableInvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"OwnableUnauthorizedAccount\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"int256\",\"name\":\"current\",\"type\":\"int256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"roundId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"}],\"name\":\"AnswerUpdated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnershipTransferred\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"description\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint80\",\"name\":\"roundId\",\"type\":\"uint80\"}],\"name\":\"getRoundData\",\"outputs\":[{\"internalType\":\"uint80\",\"name\":\"\",\"type\":\"uint80\"},{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"},{\"internalType\":\"uint256\",\"name\":\"startedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint80\",\"name\":\"answeredInRound\",\"type\":\"uint80\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestAnswer\",\"outputs\":[{\"internalType\":\"int256\",\"name\":\"\",\"type\":\"int256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestRound\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"latestRoundData\",\"outputs\":[{\"internalType\":\"uint80\",\"name\":\"roundId\",\"type\":\"uint80\"},{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"},{\"internalType\":\"uint256\",\"name\":\"startedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"updatedAt\",\"type\":\"uint256\"},{\"internalType\":\"uint80\",\"name\":\"answeredInRound\",\"type\":\"uint80\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"renounceOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"int256\",\"name\":\"answer\",\"type\":\"int256\"}],\"name\":\"setAnswer\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"version\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"pure\",\"type\":\"function\"}]",
	ID:  "PriceFeed",
	Bin: "0x60a060405234801561000f575f5ffd5b506040516109e33803806109e383398101604081905261002e91610196565b338061005357604051631e4fbdf760e01b81525f600482015260240160405180910390fd5b61005c81610082565b5060ff8316608052600161007083826102f9565b5061007a816100d1565b5050506103e8565b5f80546001600160a01b038381166001600160a01b0319831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b6002545f906100ea906001600160501b031660016103b7565b600280546001600160501b0383166001600160501b031990911681178255604080516060810182528681524260208083018281528385018381525f87815260039093529185902093518455516001840155519190940155519293509184917f0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f9161017691815260200190565b60405180910390a35050565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f606084860312156101a8575f5ffd5b835160ff811681146101b8575f5ffd5b60208501519093506001600160401b038111156101d3575f5ffd5b8401601f810186136101e3575f5ffd5b80516001600160401b038111156101fc576101fc610182565b604051601f8201601f19908116603f011681016001600160401b038111828210171561022a5761022a610182565b604052818152828201602001881015610241575f5ffd5b8160208401602083015e5f91810160200191909152604095909501519396949550929392505050565b600181811c9082168061027e57607f821691505b60208210810361029c57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156102f457828211156102f457805f5260205f20601f840160051c60208510156102cd57505f5b90810190601f840160051c035f5b818110156102f0575f838201556001016102db565b5050505b505050565b81516001600160401b0381111561031257610312610182565b61032681610320845461026a565b846102a2565b6020601f821160018114610358575f83156103415750848201515b5f19600385901b1c1916600184901b1784556103b0565b5f84815260208120601f198516915b828110156103875787850151825560209485019460019092019101610367565b50848210156103a457868401515f19600387901b60f8161c191681555b505060018360011b0184555b5050505050565b6001600160501b0381811683821601908111156103e257634e487b7160e01b5f52601160045260245ffd5b92915050565b6080516105e46103ff5f395f60b101526105e45ff3fe608060405234801561000f575f5ffd5b50600436106100a6575f3560e01c80637284e4161161006e5780637284e4161461012b5780638da5cb5b1461014057806399213cd81461015a5780639a6fc8f51461016d578063f2fde38b146101b4578063feaf968c146101c7575f5ffd5b8063313ce567146100aa57806350d25bcd146100e057806354fd4d5014610109578063668a0f0214610110578063715018a614610121575b5f5ffd5b60405160ff7f00000000000000000000000000000000000000000000000000000000000000001681526020015b60405180910390f35b6002546001600160501b03165f908152600360205260409020545b6040519081526020016100d7565b60046100fb565b6002546001600160501b03166100fb565b610129610214565b005b610133610227565b6040516100d791906104dc565b5f546040516001600160a01b0390911681526020016100d7565b610129610168366004610511565b6102b7565b61018061017b366004610528565b6102cb565b604080516001600160501b03968716815260208101959095528401929092526060830152909116608082015260a0016100d7565b6101296101c2366004610555565b610373565b600280546001600160501b03165f81815260036020908152604091829020825160608101845281548082526001830154938201849052919095015494909201849052919290919083610180565b61021c6103ad565b6102255f6103d9565b565b6060600180546102369061057b565b80601f01602080910402602001604051908101604052809291908181526020018280546102629061057b565b80156102ad5780601f10610284576101008083540402835291602001916102ad565b820191905f5260205f20905b81548152906001019060200180831161029057829003601f168201915b5050505050905090565b6102bf6103ad565b6102c881610428565b50565b6001600160501b0381165f90815260036020908152604080832081516060810183528154815260018201549381019390935260020154908201819052829182918291829182036103545760405162461bcd60e51b815260206004820152600f60248201526e139bc819185d18481c1c995cd95b9d608a1b60448201526064015b60405180910390fd5b8051602082015160409092015197989097919650909450879350915050565b61037b6103ad565b6001600160a01b0381166103a457604051631e4fbdf760e01b81525f600482015260240161034b565b6102c8816103d9565b5f546001600160a01b031633146102255760405163118cdaa760e01b815233600482015260240161034b565b5f80546001600160a01b038381166001600160a01b0319831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b6002545f90610441906001600160501b031660016105b3565b600280546001600160501b03831669ffffffffffffffffffff1990911681178255604080516060810182528681524260208083018281528385018381525f87815260039093529185902093518455516001840155519190940155519293509184917f0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f916104d091815260200190565b60405180910390a35050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f60208284031215610521575f5ffd5b5035919050565b5f60208284031215610538575f5ffd5b81356001600160501b038116811461054e575f5ffd5b9392505050565b5f60208284031215610565575f5ffd5b81356001600160a01b038116811461054e575f5ffd5b600181811c9082168061058f57607f821691505b6020821081036105ad57634e487b7160e01b5f52602260045260245ffd5b50919050565b6001600160501b0381811683821601908111156105de57634e487b7160e01b5f52601160045260245ffd5b9291505056",
}

// PriceFeed is an auto generated Go binding around an Ethereum contract.
type PriceFeed struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PriceFeed) GetABI() abi.ABI {
	return c.abi
}

// NewPriceFeed creates a new instance of PriceFeed.
func NewPriceFeed() *PriceFeed {
	parsed, err := PriceFeedMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PriceFeed{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PriceFeed) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint8 decimals_, string description_, int256 initialAnswer) returns()
func (priceFeed *PriceFeed) PackConstructor(decimals_ uint8, description_ string, initialAnswer *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("", decimals_, description_, initialAnswer)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (priceFeed *PriceFeed) PackDecimals() []byte {
	enc, err := priceFeed.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (priceFeed *PriceFeed) TryPackDecimals() ([]byte, error) {
	return priceFeed.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (priceFeed *PriceFeed) UnpackDecimals(data []byte) (uint8, error) {
	out, err := priceFeed.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackDescription is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7284e416.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) PackDescription() []byte {
	enc, err := priceFeed.abi.Pack("description")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDescription is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7284e416.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) TryPackDescription() ([]byte, error) {
	return priceFeed.abi.Pack("description")
}

// UnpackDescription is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7284e416.
//
// Solidity: function description() view returns(string)
func (priceFeed *PriceFeed) UnpackDescription(data []byte) (string, error) {
	out, err := priceFeed.abi.Unpack("description", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackGetRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a6fc8f5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRoundData(uint80 roundId) view returns(uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) PackGetRoundData(roundId *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("getRoundData", roundId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a6fc8f5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRoundData(uint80 roundId) view returns(uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) TryPackGetRoundData(roundId *big.Int) ([]byte, error) {
	return priceFeed.abi.Pack("getRoundData", roundId)
}

// GetRoundDataOutput serves as a container for the return parameters of contract
// method GetRoundData.
type GetRoundDataOutput struct {
	Arg0            *big.Int
	Answer          *big.Int
	StartedAt       *big.Int
	UpdatedAt       *big.Int
	AnsweredInRound *big.Int
}

// UnpackGetRoundData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9a6fc8f5.
//
// Solidity: function getRoundData(uint80 roundId) view returns(uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) UnpackGetRoundData(data []byte) (GetRoundDataOutput, error) {
	out, err := priceFeed.abi.Unpack("getRoundData", data)
	outstruct := new(GetRoundDataOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Arg0 = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Answer = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.StartedAt = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	outstruct.UpdatedAt = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.AnsweredInRound = abi.ConvertType(out[4], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackLatestAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x50d25bcd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) PackLatestAnswer() []byte {
	enc, err := priceFeed.abi.Pack("latestAnswer")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x50d25bcd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) TryPackLatestAnswer() ([]byte, error) {
	return priceFeed.abi.Pack("latestAnswer")
}

// UnpackLatestAnswer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x50d25bcd.
//
// Solidity: function latestAnswer() view returns(int256)
func (priceFeed *PriceFeed) UnpackLatestAnswer(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("latestAnswer", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackLatestRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x668a0f02.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestRound() view returns(uint256)
func (priceFeed *PriceFeed) PackLatestRound() []byte {
	enc, err := priceFeed.abi.Pack("latestRound")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestRound is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x668a0f02.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestRound() view returns(uint256)
func (priceFeed *PriceFeed) TryPackLatestRound() ([]byte, error) {
	return priceFeed.abi.Pack("latestRound")
}

// UnpackLatestRound is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x668a0f02.
//
// Solidity: function latestRound() view returns(uint256)
func (priceFeed *PriceFeed) UnpackLatestRound(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("latestRound", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackLatestRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfeaf968c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) PackLatestRoundData() []byte {
	enc, err := priceFeed.abi.Pack("latestRoundData")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLatestRoundData is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfeaf968c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) TryPackLatestRoundData() ([]byte, error) {
	return priceFeed.abi.Pack("latestRoundData")
}

// LatestRoundDataOutput serves as a container for the return parameters of contract
// method LatestRoundData.
type LatestRoundDataOutput struct {
	RoundId         *big.Int
	Answer          *big.Int
	StartedAt       *big.Int
	UpdatedAt       *big.Int
	AnsweredInRound *big.Int
}

// UnpackLatestRoundData is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfeaf968c.
//
// Solidity: function latestRoundData() view returns(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
func (priceFeed *PriceFeed) UnpackLatestRoundData(data []byte) (LatestRoundDataOutput, error) {
	out, err := priceFeed.abi.Unpack("latestRoundData", data)
	outstruct := new(LatestRoundDataOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.RoundId = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Answer = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.StartedAt = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	outstruct.UpdatedAt = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.AnsweredInRound = abi.ConvertType(out[4], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (priceFeed *PriceFeed) PackOwner() []byte {
	enc, err := priceFeed.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (priceFeed *PriceFeed) TryPackOwner() ([]byte, error) {
	return priceFeed.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (priceFeed *PriceFeed) UnpackOwner(data []byte) (common.Address, error) {
	out, err := priceFeed.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceOwnership() returns()
func (priceFeed *PriceFeed) PackRenounceOwnership() []byte {
	enc, err := priceFeed.abi.Pack("renounceOwnership")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function renounceOwnership() returns()
func (priceFeed *PriceFeed) TryPackRenounceOwnership() ([]byte, error) {
	return priceFeed.abi.Pack("renounceOwnership")
}

// PackSetAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x99213cd8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setAnswer(int256 answer) returns()
func (priceFeed *PriceFeed) PackSetAnswer(answer *big.Int) []byte {
	enc, err := priceFeed.abi.Pack("setAnswer", answer)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetAnswer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x99213cd8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setAnswer(int256 answer) returns()
func (priceFeed *PriceFeed) TryPackSetAnswer(answer *big.Int) ([]byte, error) {
	return priceFeed.abi.Pack("setAnswer", answer)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (priceFeed *PriceFeed) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := priceFeed.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (priceFeed *PriceFeed) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return priceFeed.abi.Pack("transferOwnership", newOwner)
}

// PackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function version() pure returns(uint256)
func (priceFeed *PriceFeed) PackVersion() []byte {
	enc, err := priceFeed.abi.Pack("version")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function version() pure returns(uint256)
func (priceFeed *PriceFeed) TryPackVersion() ([]byte, error) {
	return priceFeed.abi.Pack("version")
}

// UnpackVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x54fd4d50.
//
// Solidity: function version() pure returns(uint256)
func (priceFeed *PriceFeed) UnpackVersion(data []byte) (*big.Int, error) {
	out, err := priceFeed.abi.Unpack("version", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PriceFeedAnswerUpdated represents a AnswerUpdated event raised by the PriceFeed contract.
type PriceFeedAnswerUpdated struct {
	Current   *big.Int
	RoundId   *big.Int
	UpdatedAt *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const PriceFeedAnswerUpdatedEventName = "AnswerUpdated"

// ContractEventName returns the user-defined event name.
func (PriceFeedAnswerUpdated) ContractEventName() string {
	return PriceFeedAnswerUpdatedEventName
}

// UnpackAnswerUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)
func (priceFeed *PriceFeed) UnpackAnswerUpdatedEvent(log *types.Log) (*PriceFeedAnswerUpdated, error) {
	event := "AnswerUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != priceFeed.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PriceFeedAnswerUpdated)
	if len(log.Data) > 0 {
		if err := priceFeed.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range priceFeed.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// PriceFeedOwnershipTransferred represents a OwnershipTransferred event raised by the PriceFeed contract.
type PriceFeedOwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const PriceFeedOwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (PriceFeedOwnershipTransferred) ContractEventName() string {
	return PriceFeedOwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (priceFeed *PriceFeed) UnpackOwnershipTransferredEvent(log *types.Log) (*PriceFeedOwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != priceFeed.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PriceFeedOwnershipTransferred)
	if len(log.Data) > 0 {
		if err := priceFeed.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range priceFeed.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (priceFeed *PriceFeed) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], priceFeed.abi.Errors["OwnableInvalidOwner"].ID.Bytes()[:4]) {
		return priceFeed.UnpackOwnableInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], priceFeed.abi.Errors["OwnableUnauthorizedAccount"].ID.Bytes()[:4]) {
		return priceFeed.UnpackOwnableUnauthorizedAccountError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PriceFeedOwnableInvalidOwner represents a OwnableInvalidOwner error raised by the PriceFeed contract.
type PriceFeedOwnableInvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableInvalidOwner(address owner)
func PriceFeedOwnableInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x1e4fbdf7f3ef8bcaa855599e3abf48b232380f183f08f6f813d9ffa5bd585188")
}

// UnpackOwnableInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableInvalidOwner(address owner)
func (priceFeed *PriceFeed) UnpackOwnableInvalidOwnerError(raw []byte) (*PriceFeedOwnableInvalidOwner, error) {
	out := new(PriceFeedOwnableInvalidOwner)
	if err := priceFeed.abi.UnpackIntoInterface(out, "OwnableInvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PriceFeedOwnableUnauthorizedAccount represents a OwnableUnauthorizedAccount error raised by the PriceFeed contract.
type PriceFeedOwnableUnauthorizedAccount struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func PriceFeedOwnableUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0x118cdaa7a341953d1887a2245fd6665d741c67c8c50581daa59e1d03373fa188")
}

// UnpackOwnableUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func (priceFeed *PriceFeed) UnpackOwnableUnauthorizedAccountError(raw []byte) (*PriceFeedOwnableUnauthorizedAccount, error) {
	out := new(PriceFeedOwnableUnauthorizedAccount)
	if err := priceFeed.abi.UnpackIntoInterface(out, "OwnableUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}
