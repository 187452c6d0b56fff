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

// DemoNFTMetaData contains all meta data concerning the DemoNFT contract.
var DemoNFTMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"priceWei\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"paymentToken_\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenPrice_\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"maxSupply_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721IncorrectOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721InsufficientApproval\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOperator\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC721InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721NonexistentToken\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"OwnableInvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"OwnableUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"approved\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"name\":\"ApprovalForAll\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"quantity\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"paid\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"currency\",\"type\":\"address\"}],\"name\":\"Minted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnershipTransferred\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"quantity\",\"type\":\"uint256\"}],\"name\":\"freeMint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"getApproved\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"isApprovedForAll\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"maxSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"quantity\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256[]\",\"name\":\"ids\",\"type\":\"uint256[]\"}],\"name\":\"mintIds\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"quantity\",\"type\":\"uint256\"}],\"name\":\"mintWithToken\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ownerOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"paymentToken\",\"outputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"price\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"renounceOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"name\":\"setApprovalForAll\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"newMaxSupply\",\"type\":\"uint256\"}],\"name\":\"setMaxSupply\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"tokenPrice\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"tokenURI\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalMinted\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"addresspayable\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "DemoNFT",
	Bin: "0x60e06040526001600955348015610014575f5ffd5b5060405161207f38038061207f83398101604081905261003391610198565b3386865f61004183826102c7565b50600161004e82826102c7565b5050506001600160a01b03811661007e57604051631e4fbdf760e01b81525f600482015260240160405180910390fd5b610087816100aa565b506080939093526001600160a01b0390911660a05260c052600755506103859050565b600680546001600160a01b038381166001600160a01b0319831681179093556040519116919082907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0905f90a35050565b634e487b7160e01b5f52604160045260245ffd5b5f82601f83011261011e575f5ffd5b81516001600160401b03811115610137576101376100fb565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610165576101656100fb565b60405281815283820160200185101561017c575f5ffd5b8160208501602083015e5f918101602001919091529392505050565b5f5f5f5f5f5f60c087890312156101ad575f5ffd5b86516001600160401b038111156101c2575f5ffd5b6101ce89828a0161010f565b602089015190975090506001600160401b038111156101eb575f5ffd5b6101f789828a0161010f565b604089015160608a0151919750955090506001600160a01b038116811461021c575f5ffd5b608088015160a090980151969995985093969395939492505050565b600181811c9082168061024c57607f821691505b60208210810361026a57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156102c257828211156102c257805f5260205f20601f840160051c602085101561029b57505f5b90810190601f840160051c035f5b818110156102be575f838201556001016102a9565b5050505b505050565b81516001600160401b038111156102e0576102e06100fb565b6102f4816102ee8454610238565b84610270565b6020601f821160018114610326575f831561030f5750848201515b5f19600385901b1c1916600184901b17845561037e565b5f84815260208120601f198516915b828110156103555787850151825560209485019460019092019101610335565b508482101561037257868401515f19600387901b60f8161c191681555b505060018360011b0184555b5050505050565b60805160a05160c051611c916103ee5f395f81816103ab01526105e701525f818161029501528181610567015281816106240152818161066401528181610aa901528181610aed0152610b7301525f818161042e0152818161080601526108e10152611c915ff3fe608060405260043610610195575f3560e01c806370a08231116100e7578063a22cb46511610087578063c87b56dd11610062578063c87b56dd146104a2578063d5abeb01146104c1578063e985e9c5146104d6578063f2fde38b146104f5575f5ffd5b8063a22cb46514610450578063a2309ff81461046f578063b88d4fde14610483575f5ffd5b80638da5cb5b116100c25780638da5cb5b146103cd57806395d89b41146103ea5780639883566e146103fe578063a035b1fe1461041d575f5ffd5b806370a0823114610359578063715018a6146103865780637ff9b5961461039a575f5ffd5b80633013ce2911610152578063428f3a501161012d578063428f3a50146102e957806351cff8d9146102fc5780636352211e1461031b5780636f8b44b01461033a575f5ffd5b80633013ce291461028457806340c10f19146102b757806342842e0e146102ca575f5ffd5b806301ffc9a714610199578063043dd554146101cd57806306fdde03146101ee578063081812fc1461020f578063095ea7b31461024657806323b872dd14610265575b5f5ffd5b3480156101a4575f5ffd5b506101b86101b336600461184d565b610514565b60405190151581526020015b60405180910390f35b3480156101d8575f5ffd5b506101ec6101e736600461187c565b610565565b005b3480156101f9575f5ffd5b506102026106b2565b6040516101c491906118d4565b34801561021a575f5ffd5b5061022e6102293660046118e6565b610741565b6040516001600160a01b0390911681526020016101c4565b348015610251575f5ffd5b506101ec61026036600461187c565b610768565b348015610270575f5ffd5b506101ec61027f3660046118fd565b610777565b34801561028f575f5ffd5b5061022e7f000000000000000000000000000000000000000000000000000000000000000081565b6101ec6102c536600461187c565b610800565b3480156102d5575f5ffd5b506101ec6102e43660046118fd565b6108bc565b6101ec6102f736600461193b565b6108db565b348015610307575f5ffd5b506101ec6103163660046119be565b610a51565b348015610326575f5ffd5b5061022e6103353660046118e6565b610c42565b348015610345575f5ffd5b506101ec6103543660046118e6565b610c4c565b348015610364575f5ffd5b506103786103733660046119be565b610ca3565b6040519081526020016101c4565b348015610391575f5ffd5b506101ec610ce8565b3480156103a5575f5ffd5b506103787f000000000000000000000000000000000000000000000000000000000000000081565b3480156103d8575f5ffd5b506006546001600160a01b031661022e565b3480156103f5575f5ffd5b50610202610cfb565b348015610409575f5ffd5b506101ec61041836600461187c565b610d0a565b348015610428575f5ffd5b506103787f000000000000000000000000000000000000000000000000000000000000000081565b34801561045b575f5ffd5b506101ec61046a3660046119d9565b610d4e565b34801561047a575f5ffd5b50600854610378565b34801561048e575f5ffd5b506101ec61049d366004611a28565b610d59565b3480156104ad575f5ffd5b506102026104bc3660046118e6565b610d71565b3480156104cc575f5ffd5b5061037860075481565b3480156104e1575f5ffd5b506101b86104f0366004611b09565b610de2565b348015610500575f5ffd5b506101ec61050f3660046119be565b610e0f565b5f6001600160e01b031982166380ac58cd60e01b148061054457506001600160e01b03198216635b5e139f60e01b145b8061055f57506301ffc9a760e01b6001600160e01b03198316145b92915050565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03166105e05760405162461bcd60e51b815260206004820181905260248201527f44656d6f4e46543a20746f6b656e207061796d656e74732064697361626c656460448201526064015b60405180910390fd5b5f61060b827f0000000000000000000000000000000000000000000000000000000000000000611b49565b90506106178383610e4c565b61064c6001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016333084610eb9565b60408051838152602081018390526001600160a01b037f00000000000000000000000000000000000000000000000000000000000000008116928201929092529084169033905f516020611c715f395f51905f52906060015b60405180910390a3505050565b60605f80546106c090611b60565b80601f01602080910402602001604051908101604052809291908181526020018280546106ec90611b60565b80156107375780601f1061070e57610100808354040283529160200191610737565b820191905f5260205f20905b81548152906001019060200180831161071a57829003601f168201915b5050505050905090565b5f61074b82610eef565b505f828152600460205260409020546001600160a01b031661055f565b610773828233610f27565b5050565b6001600160a01b0382166107a057604051633250574960e11b81525f60048201526024016105d7565b5f6107ac838333610f34565b9050836001600160a01b0316816001600160a01b0316146107fa576040516364283d7b60e01b81526001600160a01b03808616600483015260248201849052821660448201526064016105d7565b50505050565b61082a817f0000000000000000000000000000000000000000000000000000000000000000611b49565b34146108715760405162461bcd60e51b815260206004820152601660248201527511195b5bd391950e881ddc9bdb99c81c185e5b595b9d60521b60448201526064016105d7565b61087b8282610e4c565b604080518281523460208201525f918101919091526001600160a01b0383169033905f516020611c715f395f51905f52906060015b60405180910390a35050565b6108d683838360405180602001604052805f815250610d59565b505050565b610905817f0000000000000000000000000000000000000000000000000000000000000000611b49565b341461094c5760405162461bcd60e51b815260206004820152601660248201527511195b5bd391950e881ddc9bdb99c81c185e5b595b9d60521b60448201526064016105d7565b6109568382611026565b5f5b81811015610a17575f61099784848481811061097657610976611b98565b905060200201355f908152600260205260409020546001600160a01b031690565b6001600160a01b0316146109ed5760405162461bcd60e51b815260206004820152601d60248201527f44656d6f4e46543a20746f6b656e20616c7265616479206d696e74656400000060448201526064016105d7565b610a0f84848484818110610a0357610a03611b98565b9050602002013561113b565b600101610958565b50604080518281523460208201525f918101919091526001600160a01b0384169033905f516020611c715f395f51905f52906060016106a5565b610a5961119c565b6001600160a01b038116610aa75760405162461bcd60e51b815260206004820152601560248201527444656d6f4e46543a207a65726f206164647265737360581b60448201526064016105d7565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031615610b9c576040516370a0823160e01b81523060048201525f907f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316906370a0823190602401602060405180830381865afa158015610b3a573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610b5e9190611bac565b90508015610b9a57610b9a6001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001683836111c9565b505b478015610773575f826001600160a01b0316826040515f6040518083038185875af1925050503d805f8114610bec576040519150601f19603f3d011682016040523d82523d5f602084013e610bf1565b606091505b50509050806108d65760405162461bcd60e51b815260206004820152601860248201527f44656d6f4e46543a207769746864726177206661696c6564000000000000000060448201526064016105d7565b5f61055f82610eef565b610c5461119c565b600854811015610c9e5760405162461bcd60e51b815260206004820152601560248201527411195b5bd391950e8818995b1bddc81b5a5b9d1959605a1b60448201526064016105d7565b600755565b5f6001600160a01b038216610ccd576040516322718ad960e21b81525f60048201526024016105d7565b506001600160a01b03165f9081526003602052604090205490565b610cf061119c565b610cf95f6111fe565b565b6060600180546106c090611b60565b610d148282610e4c565b604080518281525f60208201819052918101919091526001600160a01b0383169033905f516020611c715f395f51905f52906060016108b0565b61077333838361124f565b610d64848484610777565b6107fa338585858561130e565b6060610d7c82610eef565b505f610d9260408051602081019091525f815290565b90505f815111610db05760405180602001604052805f815250610ddb565b80610dba84611436565b604051602001610dcb929190611bda565b6040516020818303038152906040525b9392505050565b6001600160a01b039182165f90815260056020908152604080832093909416825291909152205460ff1690565b610e1761119c565b6001600160a01b038116610e4057604051631e4fbdf760e01b81525f60048201526024016105d7565b610e49816111fe565b50565b610e568282611026565b6009545f5b82811015610eb1575b5f828152600260205260409020546001600160a01b031615610e925781610e8a81611bee565b925050610e64565b610e9c848361113b565b81610ea681611bee565b925050600101610e5b565b506009555050565b610ec78484848460016114c6565b6107fa57604051635274afe760e01b81526001600160a01b03851660048201526024016105d7565b5f818152600260205260408120546001600160a01b03168061055f57604051637e27328960e01b8152600481018490526024016105d7565b6108d68383836001611533565b5f828152600260205260408120546001600160a01b0390811690831615610f6057610f60818486611637565b6001600160a01b03811615610f9a57610f7b5f855f5f611533565b6001600160a01b0381165f90815260036020526040902080545f190190555b6001600160a01b03851615610fc8576001600160a01b0385165f908152600360205260409020805460010190555b5f8481526002602052604080822080546001600160a01b0319166001600160a01b0389811691821790925591518793918516917fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef91a4949350505050565b6001600160a01b0382166110865760405162461bcd60e51b815260206004820152602160248201527f44656d6f4e46543a206d696e7420746f20746865207a65726f206164647265736044820152607360f81b60648201526084016105d7565b5f81116110ce5760405162461bcd60e51b815260206004820152601660248201527544656d6f4e46543a207a65726f207175616e7469747960501b60448201526064016105d7565b600754816008546110df9190611c06565b11156111215760405162461bcd60e51b815260206004820152601160248201527011195b5bd391950e881cdbdb19081bdd5d607a1b60448201526064016105d7565b8060085f8282546111329190611c06565b90915550505050565b6001600160a01b03821661116457604051633250574960e11b81525f60048201526024016105d7565b5f61117083835f610f34565b90506001600160a01b038116156108d6576040516339e3563760e11b81525f60048201526024016105d7565b6006546001600160a01b03163314610cf95760405163118cdaa760e01b81523360048201526024016105d7565b6111d6838383600161169b565b6108d657604051635274afe760e01b81526001600160a01b03841660048201526024016105d7565b600680546001600160a01b038381166001600160a01b0319831681179093556040519116919082907f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0905f90a35050565b6001600160a01b0383166112785760405163a9fbf51f60e01b81525f60048201526024016105d7565b6001600160a01b0382166112aa57604051630b61174360e31b81526001600160a01b03831660048201526024016105d7565b6001600160a01b038381165f81815260056020908152604080832094871680845294825291829020805460ff191686151590811790915591519182527f17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c3191016106a5565b6001600160a01b0383163b1561142f57604051630a85bd0160e11b81526001600160a01b0384169063150b7a0290611350908890889087908790600401611c19565b6020604051808303815f875af192505050801561138a575060408051601f3d908101601f1916820190925261138791810190611c55565b60015b6113f1573d8080156113b7576040519150601f19603f3d011682016040523d82523d5f602084013e6113bc565b606091505b5080515f036113e957604051633250574960e11b81526001600160a01b03851660048201526024016105d7565b805160208201fd5b6001600160e01b03198116630a85bd0160e11b1461142d57604051633250574960e11b81526001600160a01b03851660048201526024016105d7565b505b5050505050565b60605f611442836116fd565b60010190505f8167ffffffffffffffff81111561146157611461611a14565b6040519080825280601f01601f19166020018201604052801561148b576020820181803683370190505b5090508181016020015b5f19016f181899199a1a9b1b9c1cb0b131b232b360811b600a86061a8153600a850494508461149557509392505050565b6040516323b872dd60e01b5f8181526001600160a01b038781166004528616602452604485905291602083606481808c5af1925060015f51148316611522578383151615611516573d5f823e3d81fd5b5f883b113d1516831692505b604052505f60605295945050505050565b808061154757506001600160a01b03821615155b15611608575f61155684610eef565b90506001600160a01b038316158015906115825750826001600160a01b0316816001600160a01b031614155b801561159557506115938184610de2565b155b156115be5760405163a9fbf51f60e01b81526001600160a01b03841660048201526024016105d7565b81156116065783856001600160a01b0316826001600160a01b03167f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560405160405180910390a45b505b50505f90815260046020526040902080546001600160a01b0319166001600160a01b0392909216919091179055565b6116428383836117d4565b6108d6576001600160a01b03831661167057604051637e27328960e01b8152600481018290526024016105d7565b60405163177e802f60e01b81526001600160a01b0383166004820152602481018290526044016105d7565b60405163a9059cbb60e01b5f8181526001600160a01b038616600452602485905291602083604481808b5af1925060015f511483166116f15783831516156116e5573d5f823e3d81fd5b5f873b113d1516831692505b60405250949350505050565b5f8072184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b831061173b5772184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b830492506040015b6d04ee2d6d415b85acef81000000008310611767576d04ee2d6d415b85acef8100000000830492506020015b662386f26fc10000831061178557662386f26fc10000830492506010015b6305f5e100831061179d576305f5e100830492506008015b61271083106117b157612710830492506004015b606483106117c3576064830492506002015b600a831061055f5760010192915050565b5f6001600160a01b038316158015906118305750826001600160a01b0316846001600160a01b0316148061180d575061180d8484610de2565b8061183057505f828152600460205260409020546001600160a01b038481169116145b949350505050565b6001600160e01b031981168114610e49575f5ffd5b5f6020828403121561185d575f5ffd5b8135610ddb81611838565b6001600160a01b0381168114610e49575f5ffd5b5f5f6040838503121561188d575f5ffd5b823561189881611868565b946020939093013593505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f610ddb60208301846118a6565b5f602082840312156118f6575f5ffd5b5035919050565b5f5f5f6060848603121561190f575f5ffd5b833561191a81611868565b9250602084013561192a81611868565b929592945050506040919091013590565b5f5f5f6040848603121561194d575f5ffd5b833561195881611868565b9250602084013567ffffffffffffffff811115611973575f5ffd5b8401601f81018613611983575f5ffd5b803567ffffffffffffffff811115611999575f5ffd5b8660208260051b84010111156119ad575f5ffd5b939660209190910195509293505050565b5f602082840312156119ce575f5ffd5b8135610ddb81611868565b5f5f604083850312156119ea575f5ffd5b82356119f581611868565b915060208301358015158114611a09575f5ffd5b809150509250929050565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f60808587031215611a3b575f5ffd5b8435611a4681611868565b93506020850135611a5681611868565b925060408501359150606085013567ffffffffffffffff811115611a78575f5ffd5b8501601f81018713611a88575f5ffd5b803567ffffffffffffffff811115611aa257611aa2611a14565b604051601f8201601f19908116603f0116810167ffffffffffffffff81118282101715611ad157611ad1611a14565b604052818152828201602001891015611ae8575f5ffd5b816020840160208301375f6020838301015280935050505092959194509250565b5f5f60408385031215611b1a575f5ffd5b8235611b2581611868565b91506020830135611a0981611868565b634e487b7160e01b5f52601160045260245ffd5b808202811582820484141761055f5761055f611b35565b600181811c90821680611b7457607f821691505b602082108103611b9257634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52603260045260245ffd5b5f60208284031215611bbc575f5ffd5b5051919050565b5f81518060208401855e5f93019283525090919050565b5f611830611be88386611bc3565b84611bc3565b5f60018201611bff57611bff611b35565b5060010190565b8082018082111561055f5761055f611b35565b6001600160a01b03858116825284166020820152604081018390526080606082018190525f90611c4b908301846118a6565b9695505050505050565b5f60208284031215611c65575f5ffd5b8151610ddb8161183856fe061d26e789ea68042bc6773df40c81fb26c22e2381568df6862368f0eabe9b75",
}

// DemoNFT is an auto generated Go binding around an Ethereum contract.
type DemoNFT struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DemoNFT) GetABI() abi.ABI {
	return c.abi
}

// NewDemoNFT creates a new instance of DemoNFT.
func NewDemoNFT() *DemoNFT {
	parsed, err := DemoNFTMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DemoNFT{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DemoNFT) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string name_, string symbol_, uint256 priceWei, address paymentToken_, uint256 tokenPrice_, uint256 maxSupply_) returns()
func (demoNFT *DemoNFT) PackConstructor(name_ string, symbol_ string, priceWei *big.Int, paymentToken_ common.Address, tokenPrice_ *big.Int, maxSupply_ *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("", name_, symbol_, priceWei, paymentToken_, tokenPrice_, maxSupply_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) PackApprove(to common.Address, tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("approve", to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) TryPackApprove(to common.Address, tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("approve", to, tokenId)
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (demoNFT *DemoNFT) PackBalanceOf(owner common.Address) []byte {
	enc, err := demoNFT.abi.Pack("balanceOf", owner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (demoNFT *DemoNFT) TryPackBalanceOf(owner common.Address) ([]byte, error) {
	return demoNFT.abi.Pack("balanceOf", owner)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (demoNFT *DemoNFT) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := demoNFT.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackFreeMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9883566e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function freeMint(address to, uint256 quantity) returns()
func (demoNFT *DemoNFT) PackFreeMint(to common.Address, quantity *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("freeMint", to, quantity)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFreeMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9883566e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function freeMint(address to, uint256 quantity) returns()
func (demoNFT *DemoNFT) TryPackFreeMint(to common.Address, quantity *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("freeMint", to, quantity)
}

// PackGetApproved is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x081812fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) PackGetApproved(tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("getApproved", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetApproved is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x081812fc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) TryPackGetApproved(tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("getApproved", tokenId)
}

// UnpackGetApproved is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x081812fc.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) UnpackGetApproved(data []byte) (common.Address, error) {
	out, err := demoNFT.abi.Unpack("getApproved", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackIsApprovedForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe985e9c5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (demoNFT *DemoNFT) PackIsApprovedForAll(owner common.Address, operator common.Address) []byte {
	enc, err := demoNFT.abi.Pack("isApprovedForAll", owner, operator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsApprovedForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe985e9c5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (demoNFT *DemoNFT) TryPackIsApprovedForAll(owner common.Address, operator common.Address) ([]byte, error) {
	return demoNFT.abi.Pack("isApprovedForAll", owner, operator)
}

// UnpackIsApprovedForAll is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe985e9c5.
//
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (demoNFT *DemoNFT) UnpackIsApprovedForAll(data []byte) (bool, error) {
	out, err := demoNFT.abi.Unpack("isApprovedForAll", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackMaxSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5abeb01.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function maxSupply() view returns(uint256)
func (demoNFT *DemoNFT) PackMaxSupply() []byte {
	enc, err := demoNFT.abi.Pack("maxSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMaxSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5abeb01.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function maxSupply() view returns(uint256)
func (demoNFT *DemoNFT) TryPackMaxSupply() ([]byte, error) {
	return demoNFT.abi.Pack("maxSupply")
}

// UnpackMaxSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd5abeb01.
//
// Solidity: function maxSupply() view returns(uint256)
func (demoNFT *DemoNFT) UnpackMaxSupply(data []byte) (*big.Int, error) {
	out, err := demoNFT.abi.Unpack("maxSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 quantity) payable returns()
func (demoNFT *DemoNFT) PackMint(to common.Address, quantity *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("mint", to, quantity)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 quantity) payable returns()
func (demoNFT *DemoNFT) TryPackMint(to common.Address, quantity *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("mint", to, quantity)
}

// PackMintIds is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x428f3a50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mintIds(address to, uint256[] ids) payable returns()
func (demoNFT *DemoNFT) PackMintIds(to common.Address, ids []*big.Int) []byte {
	enc, err := demoNFT.abi.Pack("mintIds", to, ids)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMintIds is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x428f3a50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mintIds(address to, uint256[] ids) payable returns()
func (demoNFT *DemoNFT) TryPackMintIds(to common.Address, ids []*big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("mintIds", to, ids)
}

// PackMintWithToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x043dd554.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mintWithToken(address to, uint256 quantity) returns()
func (demoNFT *DemoNFT) PackMintWithToken(to common.Address, quantity *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("mintWithToken", to, quantity)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMintWithToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x043dd554.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mintWithToken(address to, uint256 quantity) returns()
func (demoNFT *DemoNFT) TryPackMintWithToken(to common.Address, quantity *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("mintWithToken", to, quantity)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (demoNFT *DemoNFT) PackName() []byte {
	enc, err := demoNFT.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (demoNFT *DemoNFT) TryPackName() ([]byte, error) {
	return demoNFT.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (demoNFT *DemoNFT) UnpackName(data []byte) (string, error) {
	out, err := demoNFT.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (demoNFT *DemoNFT) PackOwner() []byte {
	enc, err := demoNFT.abi.Pack("owner")
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
func (demoNFT *DemoNFT) TryPackOwner() ([]byte, error) {
	return demoNFT.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (demoNFT *DemoNFT) UnpackOwner(data []byte) (common.Address, error) {
	out, err := demoNFT.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackOwnerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6352211e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) PackOwnerOf(tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("ownerOf", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwnerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6352211e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) TryPackOwnerOf(tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("ownerOf", tokenId)
}

// UnpackOwnerOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6352211e.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (demoNFT *DemoNFT) UnpackOwnerOf(data []byte) (common.Address, error) {
	out, err := demoNFT.abi.Unpack("ownerOf", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPaymentToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3013ce29.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function paymentToken() view returns(address)
func (demoNFT *DemoNFT) PackPaymentToken() []byte {
	enc, err := demoNFT.abi.Pack("paymentToken")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPaymentToken is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3013ce29.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function paymentToken() view returns(address)
func (demoNFT *DemoNFT) TryPackPaymentToken() ([]byte, error) {
	return demoNFT.abi.Pack("paymentToken")
}

// UnpackPaymentToken is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3013ce29.
//
// Solidity: function paymentToken() view returns(address)
func (demoNFT *DemoNFT) UnpackPaymentToken(data []byte) (common.Address, error) {
	out, err := demoNFT.abi.Unpack("paymentToken", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPrice is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa035b1fe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function price() view returns(uint256)
func (demoNFT *DemoNFT) PackPrice() []byte {
	enc, err := demoNFT.abi.Pack("price")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPrice is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa035b1fe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function price() view returns(uint256)
func (demoNFT *DemoNFT) TryPackPrice() ([]byte, error) {
	return demoNFT.abi.Pack("price")
}

// UnpackPrice is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa035b1fe.
//
// Solidity: function price() view returns(uint256)
func (demoNFT *DemoNFT) UnpackPrice(data []byte) (*big.Int, error) {
	out, err := demoNFT.abi.Unpack("price", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceOwnership() returns()
func (demoNFT *DemoNFT) PackRenounceOwnership() []byte {
	enc, err := demoNFT.abi.Pack("renounceOwnership")
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
func (demoNFT *DemoNFT) TryPackRenounceOwnership() ([]byte, error) {
	return demoNFT.abi.Pack("renounceOwnership")
}

// PackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) PackSafeTransferFrom(from common.Address, to common.Address, tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("safeTransferFrom", from, to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) TryPackSafeTransferFrom(from common.Address, to common.Address, tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("safeTransferFrom", from, to, tokenId)
}

// PackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId, bytes data) returns()
func (demoNFT *DemoNFT) PackSafeTransferFrom0(from common.Address, to common.Address, tokenId *big.Int, data []byte) []byte {
	enc, err := demoNFT.abi.Pack("safeTransferFrom0", from, to, tokenId, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId, bytes data) returns()
func (demoNFT *DemoNFT) TryPackSafeTransferFrom0(from common.Address, to common.Address, tokenId *big.Int, data []byte) ([]byte, error) {
	return demoNFT.abi.Pack("safeTransferFrom0", from, to, tokenId, data)
}

// PackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setApprovalForAll(address operator, bool approved) returns()
func (demoNFT *DemoNFT) PackSetApprovalForAll(operator common.Address, approved bool) []byte {
	enc, err := demoNFT.abi.Pack("setApprovalForAll", operator, approved)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setApprovalForAll(address operator, bool approved) returns()
func (demoNFT *DemoNFT) TryPackSetApprovalForAll(operator common.Address, approved bool) ([]byte, error) {
	return demoNFT.abi.Pack("setApprovalForAll", operator, approved)
}

// PackSetMaxSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f8b44b0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setMaxSupply(uint256 newMaxSupply) returns()
func (demoNFT *DemoNFT) PackSetMaxSupply(newMaxSupply *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("setMaxSupply", newMaxSupply)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetMaxSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f8b44b0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setMaxSupply(uint256 newMaxSupply) returns()
func (demoNFT *DemoNFT) TryPackSetMaxSupply(newMaxSupply *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("setMaxSupply", newMaxSupply)
}

// PackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (demoNFT *DemoNFT) PackSupportsInterface(interfaceId [4]byte) []byte {
	enc, err := demoNFT.abi.Pack("supportsInterface", interfaceId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (demoNFT *DemoNFT) TryPackSupportsInterface(interfaceId [4]byte) ([]byte, error) {
	return demoNFT.abi.Pack("supportsInterface", interfaceId)
}

// UnpackSupportsInterface is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (demoNFT *DemoNFT) UnpackSupportsInterface(data []byte) (bool, error) {
	out, err := demoNFT.abi.Unpack("supportsInterface", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (demoNFT *DemoNFT) PackSymbol() []byte {
	enc, err := demoNFT.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (demoNFT *DemoNFT) TryPackSymbol() ([]byte, error) {
	return demoNFT.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (demoNFT *DemoNFT) UnpackSymbol(data []byte) (string, error) {
	out, err := demoNFT.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTokenPrice is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ff9b596.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tokenPrice() view returns(uint256)
func (demoNFT *DemoNFT) PackTokenPrice() []byte {
	enc, err := demoNFT.abi.Pack("tokenPrice")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTokenPrice is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ff9b596.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tokenPrice() view returns(uint256)
func (demoNFT *DemoNFT) TryPackTokenPrice() ([]byte, error) {
	return demoNFT.abi.Pack("tokenPrice")
}

// UnpackTokenPrice is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7ff9b596.
//
// Solidity: function tokenPrice() view returns(uint256)
func (demoNFT *DemoNFT) UnpackTokenPrice(data []byte) (*big.Int, error) {
	out, err := demoNFT.abi.Unpack("tokenPrice", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTokenURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc87b56dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (demoNFT *DemoNFT) PackTokenURI(tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("tokenURI", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTokenURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc87b56dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (demoNFT *DemoNFT) TryPackTokenURI(tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("tokenURI", tokenId)
}

// UnpackTokenURI is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc87b56dd.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (demoNFT *DemoNFT) UnpackTokenURI(data []byte) (string, error) {
	out, err := demoNFT.abi.Unpack("tokenURI", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalMinted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa2309ff8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalMinted() view returns(uint256)
func (demoNFT *DemoNFT) PackTotalMinted() []byte {
	enc, err := demoNFT.abi.Pack("totalMinted")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalMinted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa2309ff8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalMinted() view returns(uint256)
func (demoNFT *DemoNFT) TryPackTotalMinted() ([]byte, error) {
	return demoNFT.abi.Pack("totalMinted")
}

// UnpackTotalMinted is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa2309ff8.
//
// Solidity: function totalMinted() view returns(uint256)
func (demoNFT *DemoNFT) UnpackTotalMinted(data []byte) (*big.Int, error) {
	out, err := demoNFT.abi.Unpack("totalMinted", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) PackTransferFrom(from common.Address, to common.Address, tokenId *big.Int) []byte {
	enc, err := demoNFT.abi.Pack("transferFrom", from, to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 tokenId) returns()
func (demoNFT *DemoNFT) TryPackTransferFrom(from common.Address, to common.Address, tokenId *big.Int) ([]byte, error) {
	return demoNFT.abi.Pack("transferFrom", from, to, tokenId)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (demoNFT *DemoNFT) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := demoNFT.abi.Pack("transferOwnership", newOwner)
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
func (demoNFT *DemoNFT) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return demoNFT.abi.Pack("transferOwnership", newOwner)
}

// PackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51cff8d9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdraw(address to) returns()
func (demoNFT *DemoNFT) PackWithdraw(to common.Address) []byte {
	enc, err := demoNFT.abi.Pack("withdraw", to)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51cff8d9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdraw(address to) returns()
func (demoNFT *DemoNFT) TryPackWithdraw(to common.Address) ([]byte, error) {
	return demoNFT.abi.Pack("withdraw", to)
}

// DemoNFTApproval represents a Approval event raised by the DemoNFT contract.
type DemoNFTApproval struct {
	Owner    common.Address
	Approved common.Address
	TokenId  *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const DemoNFTApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (DemoNFTApproval) ContractEventName() string {
	return DemoNFTApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)
func (demoNFT *DemoNFT) UnpackApprovalEvent(log *types.Log) (*DemoNFTApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != demoNFT.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DemoNFTApproval)
	if len(log.Data) > 0 {
		if err := demoNFT.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range demoNFT.abi.Events[event].Inputs {
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

// DemoNFTApprovalForAll represents a ApprovalForAll event raised by the DemoNFT contract.
type DemoNFTApprovalForAll struct {
	Owner    common.Address
	Operator common.Address
	Approved bool
	Raw      *types.Log // Blockchain specific contextual infos
}

const DemoNFTApprovalForAllEventName = "ApprovalForAll"

// ContractEventName returns the user-defined event name.
func (DemoNFTApprovalForAll) ContractEventName() string {
	return DemoNFTApprovalForAllEventName
}

// UnpackApprovalForAllEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ApprovalForAll(address indexed owner, address indexed operator, bool approved)
func (demoNFT *DemoNFT) UnpackApprovalForAllEvent(log *types.Log) (*DemoNFTApprovalForAll, error) {
	event := "ApprovalForAll"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != demoNFT.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DemoNFTApprovalForAll)
	if len(log.Data) > 0 {
		if err := demoNFT.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range demoNFT.abi.Events[event].Inputs {
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

// DemoNFTMinted represents a Minted event raised by the DemoNFT contract.
type DemoNFTMinted struct {
	Payer    common.Address
	To       common.Address
	Quantity *big.Int
	Paid     *big.Int
	Currency common.Address
	Raw      *types.Log // Blockchain specific contextual infos
}

const DemoNFTMintedEventName = "Minted"

// ContractEventName returns the user-defined event name.
func (DemoNFTMinted) ContractEventName() string {
	return DemoNFTMintedEventName
}

// UnpackMintedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Minted(address indexed payer, address indexed to, uint256 quantity, uint256 paid, address currency)
func (demoNFT *DemoNFT) UnpackMintedEvent(log *types.Log) (*DemoNFTMinted, error) {
	event := "Minted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != demoNFT.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DemoNFTMinted)
	if len(log.Data) > 0 {
		if err := demoNFT.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range demoNFT.abi.Events[event].Inputs {
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

// DemoNFTOwnershipTransferred represents a OwnershipTransferred event raised by the DemoNFT contract.
type DemoNFTOwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const DemoNFTOwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (DemoNFTOwnershipTransferred) ContractEventName() string {
	return DemoNFTOwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (demoNFT *DemoNFT) UnpackOwnershipTransferredEvent(log *types.Log) (*DemoNFTOwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != demoNFT.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DemoNFTOwnershipTransferred)
	if len(log.Data) > 0 {
		if err := demoNFT.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range demoNFT.abi.Events[event].Inputs {
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

// DemoNFTTransfer represents a Transfer event raised by the DemoNFT contract.
type DemoNFTTransfer struct {
	From    common.Address
	To      common.Address
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const DemoNFTTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (DemoNFTTransfer) ContractEventName() string {
	return DemoNFTTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)
func (demoNFT *DemoNFT) UnpackTransferEvent(log *types.Log) (*DemoNFTTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != demoNFT.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DemoNFTTransfer)
	if len(log.Data) > 0 {
		if err := demoNFT.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range demoNFT.abi.Events[event].Inputs {
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
func (demoNFT *DemoNFT) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721IncorrectOwner"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721IncorrectOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InsufficientApproval"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InsufficientApprovalError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InvalidApprover"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InvalidOperator"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InvalidOperatorError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InvalidOwner"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InvalidReceiver"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721InvalidSender"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["ERC721NonexistentToken"].ID.Bytes()[:4]) {
		return demoNFT.UnpackERC721NonexistentTokenError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["OwnableInvalidOwner"].ID.Bytes()[:4]) {
		return demoNFT.UnpackOwnableInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["OwnableUnauthorizedAccount"].ID.Bytes()[:4]) {
		return demoNFT.UnpackOwnableUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], demoNFT.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return demoNFT.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DemoNFTERC721IncorrectOwner represents a ERC721IncorrectOwner error raised by the DemoNFT contract.
type DemoNFTERC721IncorrectOwner struct {
	Sender  common.Address
	TokenId *big.Int
	Owner   common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func DemoNFTERC721IncorrectOwnerErrorID() common.Hash {
	return common.HexToHash("0x64283d7b313c8117c125f736876fa2b4e90ea3831a4716dfdb87d2f540e26289")
}

// UnpackERC721IncorrectOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func (demoNFT *DemoNFT) UnpackERC721IncorrectOwnerError(raw []byte) (*DemoNFTERC721IncorrectOwner, error) {
	out := new(DemoNFTERC721IncorrectOwner)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721IncorrectOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InsufficientApproval represents a ERC721InsufficientApproval error raised by the DemoNFT contract.
type DemoNFTERC721InsufficientApproval struct {
	Operator common.Address
	TokenId  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func DemoNFTERC721InsufficientApprovalErrorID() common.Hash {
	return common.HexToHash("0x177e802f6f313bc89797ecace66d6d29ab4719cbaaacbb87367264048b1eb861")
}

// UnpackERC721InsufficientApprovalError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func (demoNFT *DemoNFT) UnpackERC721InsufficientApprovalError(raw []byte) (*DemoNFTERC721InsufficientApproval, error) {
	out := new(DemoNFTERC721InsufficientApproval)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InsufficientApproval", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InvalidApprover represents a ERC721InvalidApprover error raised by the DemoNFT contract.
type DemoNFTERC721InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidApprover(address approver)
func DemoNFTERC721InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xa9fbf51f86b8e03595d59dc726bb10c329bb24f62589be276d8dd193ca0b69ea")
}

// UnpackERC721InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidApprover(address approver)
func (demoNFT *DemoNFT) UnpackERC721InvalidApproverError(raw []byte) (*DemoNFTERC721InvalidApprover, error) {
	out := new(DemoNFTERC721InvalidApprover)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InvalidOperator represents a ERC721InvalidOperator error raised by the DemoNFT contract.
type DemoNFTERC721InvalidOperator struct {
	Operator common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOperator(address operator)
func DemoNFTERC721InvalidOperatorErrorID() common.Hash {
	return common.HexToHash("0x5b08ba185e8f577075361f3a3555a6580a227ce22734dcc979c1aeadf894658b")
}

// UnpackERC721InvalidOperatorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOperator(address operator)
func (demoNFT *DemoNFT) UnpackERC721InvalidOperatorError(raw []byte) (*DemoNFTERC721InvalidOperator, error) {
	out := new(DemoNFTERC721InvalidOperator)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InvalidOperator", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InvalidOwner represents a ERC721InvalidOwner error raised by the DemoNFT contract.
type DemoNFTERC721InvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOwner(address owner)
func DemoNFTERC721InvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x89c62b6479af2e623826dcc39c5133061d35b66d72de92833401dd2fd6567480")
}

// UnpackERC721InvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOwner(address owner)
func (demoNFT *DemoNFT) UnpackERC721InvalidOwnerError(raw []byte) (*DemoNFTERC721InvalidOwner, error) {
	out := new(DemoNFTERC721InvalidOwner)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InvalidReceiver represents a ERC721InvalidReceiver error raised by the DemoNFT contract.
type DemoNFTERC721InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func DemoNFTERC721InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0x64a0ae9278f805eaf991dcd18ca78756d280b7508b764ef1b255c55845c11df9")
}

// UnpackERC721InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func (demoNFT *DemoNFT) UnpackERC721InvalidReceiverError(raw []byte) (*DemoNFTERC721InvalidReceiver, error) {
	out := new(DemoNFTERC721InvalidReceiver)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721InvalidSender represents a ERC721InvalidSender error raised by the DemoNFT contract.
type DemoNFTERC721InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidSender(address sender)
func DemoNFTERC721InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x73c6ac6e10798e95d99e1f130d923eb40193ecb8d094ec3dce93292564eb3b17")
}

// UnpackERC721InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidSender(address sender)
func (demoNFT *DemoNFT) UnpackERC721InvalidSenderError(raw []byte) (*DemoNFTERC721InvalidSender, error) {
	out := new(DemoNFTERC721InvalidSender)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTERC721NonexistentToken represents a ERC721NonexistentToken error raised by the DemoNFT contract.
type DemoNFTERC721NonexistentToken struct {
	TokenId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func DemoNFTERC721NonexistentTokenErrorID() common.Hash {
	return common.HexToHash("0x7e273289a3a9ef6670f06df7dca227856fc925e956db96980692764a8bc734d7")
}

// UnpackERC721NonexistentTokenError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func (demoNFT *DemoNFT) UnpackERC721NonexistentTokenError(raw []byte) (*DemoNFTERC721NonexistentToken, error) {
	out := new(DemoNFTERC721NonexistentToken)
	if err := demoNFT.abi.UnpackIntoInterface(out, "ERC721NonexistentToken", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTOwnableInvalidOwner represents a OwnableInvalidOwner error raised by the DemoNFT contract.
type DemoNFTOwnableInvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableInvalidOwner(address owner)
func DemoNFTOwnableInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x1e4fbdf7f3ef8bcaa855599e3abf48b232380f183f08f6f813d9ffa5bd585188")
}

// UnpackOwnableInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableInvalidOwner(address owner)
func (demoNFT *DemoNFT) UnpackOwnableInvalidOwnerError(raw []byte) (*DemoNFTOwnableInvalidOwner, error) {
	out := new(DemoNFTOwnableInvalidOwner)
	if err := demoNFT.abi.UnpackIntoInterface(out, "OwnableInvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTOwnableUnauthorizedAccount represents a OwnableUnauthorizedAccount error raised by the DemoNFT contract.
type DemoNFTOwnableUnauthorizedAccount struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func DemoNFTOwnableUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0x118cdaa7a341953d1887a2245fd6665d741c67c8c50581daa59e1d03373fa188")
}

// UnpackOwnableUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func (demoNFT *DemoNFT) UnpackOwnableUnauthorizedAccountError(raw []byte) (*DemoNFTOwnableUnauthorizedAccount, error) {
	out := new(DemoNFTOwnableUnauthorizedAccount)
	if err := demoNFT.abi.UnpackIntoInterface(out, "OwnableUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DemoNFTSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the DemoNFT contract.
type DemoNFTSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func DemoNFTSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (demoNFT *DemoNFT) UnpackSafeERC20FailedOperationError(raw []byte) (*DemoNFTSafeERC20FailedOperation, error) {
	out := new(DemoNFTSafeERC20FailedOperation)
	if err := demoNFT.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}
