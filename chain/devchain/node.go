package devchain

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // callTracer, for debug_traceBlockBy*
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// nodeName names the node's directory inside Config.DataDir.
const nodeName = "devchain"

// devNode is the chain's go-ethereum node: an Ethereum service whose blocks a simulated
// beacon seals on demand, as ethclient/simulated assembles it, assembled here so that its
// database can live in a directory and outlast the process (simulated.NewBackend keeps it
// in memory and rewinds it to genesis when it starts).
type devNode struct {
	stack  *node.Node
	beacon *catalyst.SimulatedBeacon
	client *ethclient.Client
	db     ethdb.KeyValueSyncer // the chain database, synced after each block (sync)
}

// newNode starts a node with the genesis alloc, serving JSON-RPC over HTTP on host:port
// when host is set, its database in dataDir ("" for memory). A dataDir that holds a chain
// of another genesis is refused.
func newNode(alloc types.GenesisAlloc, baseFee *big.Int, host string, port int, dataDir string) (_ *devNode, err error) {
	nodeConf := node.DefaultConfig
	nodeConf.Name = nodeName
	nodeConf.DataDir = dataDir
	nodeConf.IPCPath = ""                        // no socket next to the data
	nodeConf.P2P = p2p.Config{NoDiscovery: true} // no peers, no listener
	nodeConf.HTTPHost, nodeConf.WSHost = "", ""  // set below when asked for
	if host != "" {
		nodeConf.HTTPHost = host
		nodeConf.HTTPPort = port
		nodeConf.HTTPModules = []string{"eth", "net", "web3"}
		nodeConf.HTTPVirtualHosts = []string{"*"}
		nodeConf.HTTPCors = []string{"*"}
	}

	// Every fork go-ethereum knows is on, as in the simulator, and the system contracts those
	// forks call are present from genesis; but not the unscheduled Bogota (EIP-8037
	// state-gas metering: an ERC-20 mint to a new holder costs ~250k gas instead of ~70k):
	// stop at Osaka, like mainnet, so that gas used and gas limits match real chains.
	chainCfg := *params.AllDevChainProtocolChanges
	chainCfg.BogotaTime = nil
	genesisAlloc := core.SystemContractAllocs()
	maps.Copy(genesisAlloc, alloc)
	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{Config: &chainCfg, GasLimit: ethconfig.Defaults.Miner.GasCeil, Alloc: genesisAlloc, BaseFee: baseFee}
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true
	// A block holds every transaction waiting when it is sealed (Chain.Mine's promise). The
	// miner stops filling a block once Miner.Recommit (2 s by default: a validator's slot)
	// has passed since it started, and the simulated beacon seals what it has: a process
	// starved of CPU for that long (tests under load, -race) mined an approve without the
	// call after it, or an empty block, and the call went into the next block instead.
	ethConf.Miner.Recommit = 24 * time.Hour
	if dataDir != "" {
		// Every block's state is written with the block (an archive of hash-scheme tries),
		// so that a block on disk comes back with its state. The path scheme would keep the
		// last 128 blocks' states in memory and rewind the chain to the last one on disk.
		// Written is not yet on disk: see sync, which Chain.Mine calls after each block.
		ethConf.NoPruning = true
		ethConf.StateScheme = rawdb.HashScheme
	}

	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, fmt.Errorf("devchain: node: %w", err)
	}
	defer func() {
		if err != nil {
			_ = stack.Close()
		}
	}()
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		if dataDir != "" {
			return nil, fmt.Errorf("devchain: the chain in %s cannot be opened (remove the directory to start a new chain): %w", filepath.Join(dataDir, nodeName), err)
		}
		return nil, fmt.Errorf("devchain: %w", err)
	}
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}})
	// Tracing (debug_traceBlockByHash with callTracer: the deposit watcher's internal
	// transfers), as geth registers it. In process only: the HTTP endpoint serves eth, net and
	// web3, not the debug namespace (its methods write files and rewind the chain, and the
	// endpoint answers any web page, CORS *).
	stack.RegisterAPIs(tracers.APIs(backend.APIBackend))
	if err := stack.Start(); err != nil {
		return nil, fmt.Errorf("devchain: start node: %w", err)
	}
	// Period 0: a block only when Commit asks for one (Chain.automine and Mine).
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		return nil, fmt.Errorf("devchain: beacon: %w", err)
	}
	return &devNode{stack: stack, beacon: beacon, client: ethclient.NewClient(stack.Attach()), db: backend.ChainDb()}, nil
}

// sync puts on disk what the chain database has written so far. go-ethereum's pebble database
// writes without syncing and keeps its write-ahead log in memory until ~500 KB of it pile up,
// so a process killed (SIGKILL, an out-of-memory kill) would come back without the blocks it
// mined last, an archive node's too (seen: head 9 -> 5), while rampway's own database, which
// syncs, remembers payments and calls in them. With sync after every block a block stays once
// Mine has returned it. A no-op for a chain in memory.
func (n *devNode) sync() error { return n.db.SyncKeyValue() }

// Close stops the node; a node with a data directory writes what it holds in memory.
func (n *devNode) Close() error {
	n.client.Close()
	return errors.Join(n.beacon.Stop(), n.stack.Close())
}
