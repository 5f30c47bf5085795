"""Build bench/data/public_links/adr_projects_s38.json: session 38's first held-out set of decision records.

    python bench/build_adr_held_out_s38.py          # writes the file (deterministic: same input, same bytes)

This file IS the transcription (README.md beside the data, section "Held out, session 38"). Every public set before
it is spent, so it takes four more series of public improvement proposals whose authors mark what replaces what, none
of them used by an earlier set:

* bitcoin/bips -- Bitcoin Improvement Proposals: a "Replaces:" header, or a later BIP's own words ("This BIP replaces
  BIP 12", "a modification of an earlier BIP 0020"), or the repository index's status "Replaced";
* ethereum/EIPs -- Ethereum Improvement Proposals: a "superseded-by:" header, or a later EIP's own words ("This EIP
  also replaces the original EIP-1283 value definitions", "Same as #158 except ...");
* XRPLF/XRPL-Standards -- XRP Ledger standards: a "withdrawal-reason: Superseded by XLS-N" header, or a later
  standard's "This proposal replaces ...";
* cardano-foundation/CIPs -- Cardano Improvement Proposals: a later CIP's "This is a revised version of the original
  CIP-15".

One memory per record: its number and title and, where the record was read, its decision or abstract in the authors'
words, trimmed to a sentence or two; where it was not read, its number and title alone, from the repository's own
index (bitcoin/bips README.mediawiki as it stood in 2017; cardano-foundation/CIPs README.md as it stood on 2023-07-02)
or from the record's folder name (XRPL-Standards). A record is quoted only where its text carries a permissive licence
(a BIP's License header or Copyright section: PD, BSD-2-Clause, BSD-3-Clause, CC0-1.0; each EIP waives copyright via
CC0 and the repository's LICENSE.md is CC0; each CIP read is CC-BY-4.0 or Apache-2.0; XRPL-Standards is MIT); BIPs 12,
16 and 21 carry no licence in the copy read, so their memories are their titles and their labels are facts read there.

* `updates` are the pairs the authors marked (older first). Those whose newer memory does not cite the older one by
  number are listed again in `updates_unnamed`: the realistic case, the new state in new words.
* `ambiguous` (counted neither way): an alternative that did not retire the older record (BIP 8 to BIP 9, EIP-1283 to
  EIP-1087, EIP-3529 to EIP-3298), a part extracted from a withdrawn record (BIP 146 from BIP 62), a supplement or
  extension that replaces one parameter of the older (CIP-28 "supplements rather than replaces CIP-0009", CIP-55
  "extends CIP-0028"), an addendum (CIP-83 to CIP-20), an enhancement that keeps the older format valid (XLS-25 to
  XLS-12), a record whose successor is marked only in versions not read (EIP-3074 and EIP-7702; BIP 21 and BIP 321),
  and a later record on the older one's subject that does not say it replaces it (BIP 142 and BIP 173).
* `reports`: sentences of a record's motivation about a problem seen, dated the day before the record that cites them.
  Several are about an older standing record's subject (Bech32's insertion weakness before Bech32m; EIP-1283's
  reentrancy danger before EIP-1706; minPoolCost's effect on small pools, a parameter CIP-9 set, before CIP-74 and
  CIP-82; plaintext CIP-20 messages before CIP-83; XLS-20's complexity before XLS-35): a link from one is wrong.
* dates: the records' own ("Created:" of a BIP, EIP or CIP, "created:" of an XLS); a record without one is placed by
  its number, linear between the dates the same repository's read records give (`ANCHORS` per project), so for those
  only the order is the authors'. Proposal numbers are not always chronological (BIP 2 is from 2016, BIP 12 from 2011),
  so the anchors are the read records whose dates rise with their numbers.

Records about the same subject that stay in force are kept on purpose, the test of false supersession: the block-size
BIPs (101, 102, 103, 105, 106, 107, 109), the HD-wallet BIPs (32, 43, 44, 45, 49), the payment-protocol BIPs (70-75);
the per-era protocol parameter CIPs (9, 28, 55), the three minPoolCost proposals (CIP-23, 74, 82) and the pledge
proposals (CIP-7, 37); XLS-20's NFTs, XLS-24's metadata for them and XLS-35's URITokens, "a light-weight alternative"
to XLS-20; the net gas metering EIPs (1087, 1283, 1706, 2200) beside the refund EIPs (3298, 3529). Look-alikes that ARE
updates: BIP 20 and BIP 21, both titled "URI Scheme"; XLS-8 "Tickets" and XLS-13 "Tickets & Ticket Batching". Every
other link is wrong.
Nothing here was run through the linker before the file was committed: the whole file is held out (split
`held-out-s38`), run once by the lead, never tuned on.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import adr_records  # bench/ is not a package: the shared helpers are imported from this folder
from adr_records import placed

OUT = Path(__file__).resolve().parent / "data" / "public_links" / "adr_projects_s38.json"
SPLIT = "held-out-s38"
project = partial(adr_records.project, SPLIT)


# --- bitcoin/bips -------------------------------------------------------------------------------------------------
BIP_INDEX = "README.mediawiki"
BIP_INDEX_COMMIT = "cacc29a91c88968b9b214e3caa6a2a76742f81de"  # the repository's index as it stood in 2017
#: Titles of the records not read, as the index lists them (a BIP read below is left out here).
BIP_TITLES = {
    9: "Version bits with timeout and delay", 10: "Multi-Sig Transaction Distribution",
    11: "M-of-N Standard Transactions", 12: "OP_EVAL", 13: "Address Format for pay-to-script-hash",
    14: "Protocol Version and User Agent", 15: "Aliases", 16: "Pay to Script Hash", 17: "OP_CHECKHASHVERIFY (CHV)",
    18: "hashScriptCheck", 19: "M-of-N Standard Transactions (Low SigOp)", 20: "URI Scheme", 21: "URI Scheme",
    22: "getblocktemplate - Fundamentals", 23: "getblocktemplate - Pooled Mining", 30: "Duplicate transactions",
    31: "Pong message", 32: "Hierarchical Deterministic Wallets", 33: "Stratized Nodes",
    34: "Block v2, Height in Coinbase", 35: "mempool message", 36: "Custom Services", 37: "Connection Bloom filtering",
    38: "Passphrase-protected private key", 39: "Mnemonic code for generating deterministic keys",
    40: "Stratum wire protocol", 41: "Stratum mining protocol", 42: "A finite monetary supply for Bitcoin",
    43: "Purpose Field for Deterministic Wallets", 44: "Multi-Account Hierarchy for Deterministic Wallets",
    45: "Structure for Deterministic P2SH Multisignature Wallets",
    47: "Reusable Payment Codes for Hierarchical Deterministic Wallets",
    49: "Derivation scheme for P2WPKH-nested-in-P2SH based accounts", 50: "March 2013 Chain Fork Post-Mortem",
    60: "Fixed Length \"version\" Message (Relay-Transactions Field)", 61: "Reject P2P message",
    62: "Dealing with malleability", 63: "Stealth Addresses", 64: "getutxo message", 65: "OP_CHECKLOCKTIMEVERIFY",
    66: "Strict DER signatures",
    67: "Deterministic Pay-to-script-hash multi-signature addresses through public key sorting",
    68: "Relative lock-time using consensus-enforced sequence numbers",
    69: "Lexicographical Indexing of Transaction Inputs and Outputs", 70: "Payment Protocol",
    71: "Payment Protocol MIME types", 72: "bitcoin: uri extensions for Payment Protocol",
    73: "Use \"Accept\" header for response type negotiation with Payment Request URLs",
    74: "Allow zero value OP_RETURN in Payment Protocol",
    75: "Out of Band Address Exchange using Payment Protocol Encryption",
    80: "Hierarchy for Non-Colored Voting Pool Deterministic Multisig Wallets",
    81: "Hierarchy for Colored Voting Pool Deterministic Multisig Wallets",
    83: "Dynamic Hierarchical Deterministic Key Trees", 90: "Buried Deployments", 91: "Reduced threshold Segwit MASF",
    99: "Motivation and deployment of consensus rule changes ([soft/hard]forks)", 101: "Increase maximum block size",
    102: "Block size increase to 2MB", 103: "Block size following technological growth",
    104: "'Block75' - Max block size like difficulty", 105: "Consensus based block size retargeting algorithm",
    106: "Dynamically Controlled Bitcoin Block Size Max Cap", 107: "Dynamic limit on the block size",
    109: "Two million byte size limit with sigop and sighash limits", 111: "NODE_BLOOM service bit",
    112: "CHECKSEQUENCEVERIFY", 113: "Median time-past as endpoint for lock-time calculations",
    114: "Merkelized Abstract Syntax Tree", 115: "Generic anti-replay protection using Script", 120: "Proof of Payment",
    121: "Proof of Payment URI scheme", 122: "URI scheme for Blockchain references / exploration",
    123: "BIP Classification", 124: "Hierarchical Deterministic Script Templates",
    125: "Opt-in Full Replace-by-Fee Signaling", 126: "Best Practices for Heterogeneous Input Script Transactions",
    130: "sendheaders message", 131: "\"Coalescing Transaction\" Specification (wildcard inputs)",
    132: "Committee-based BIP Acceptance Process", 133: "feefilter message", 134: "Flexible Transactions",
    135: "Generalized version bits voting", 140: "Normalized TXID", 141: "Segregated Witness (Consensus layer)",
    143: "Transaction Signature Verification for Version 0 Witness Program",
    144: "Segregated Witness (Peer Services)", 145: "getblocktemplate Updates for Segregated Witness",
    147: "Dealing with dummy stack element malleability", 148: "Mandatory activation of segwit deployment",
    149: "Segregated Witness (second deployment)", 150: "Peer Authentication", 152: "Compact Block Relay",
    154: "Rate Limiting via peer specified challenges", 159: "NODE_NETWORK_LIMITED service bits",
    171: "Currency/exchange rate information API", 173: "Base32 address format for native v0-16 witness outputs",
    175: "Pay to Contract Protocol", 180: "Block size/weight fraud proof",
    199: "Hashed Time-Locked Contract transactions",
}
#: Records read: number -> (the record's "Created:" date, its decision or abstract in the authors' words, commit).
#: BIPs 12, 16 and 21 were read for their dates and labels only (no licence in the copy read): see BIP_DATED.
BIP_READ = {
    1: ("2011-08-19", "BIP 1: BIP Purpose and Guidelines: a BIP is a design document providing information to the "
        "Bitcoin community, or describing a new feature for Bitcoin or its processes or environment; the BIP editor "
        "assigns BIP numbers and changes their status.", "06ce7391d1cd4ab0694f6a251921aae1468a74bf"),
    2: ("2016-02-03", "BIP 2: BIP process, revised: this particular BIP replaces BIP 1 with a more well-defined and "
        "clear process; BIPs may have a Superseded-By header, and the newer BIP must have a Replaces header.",
        "0092a4318f2201793f46cd71d3e465d143a5ae19"),
    3: ("2025-01-09", "BIP 3: Updated BIP Process: it replaces BIP 2 with a streamlined process, reduces the judgment "
        "calls assigned to the BIP Editor role and delineates the BIP types more clearly; statuses are Draft, "
        "Complete, Deployed and Closed.", "00bef75d200c3513430a103afb1871846b68c00e"),
    8: ("2017-02-01", "BIP 8: Version bits with lock-in by height: soft fork deployments use block heights for start "
        "and timeout rather than POSIX timestamps, with a lockinontimeout parameter that guarantees activation at the "
        "timeout height.", "00aa4c6b4322a342f0076719a2004c4d0658774c"),
    142: ("2015-12-24", "BIP 142: Address Format for Segregated Witness: new base58 address types for native "
          "segregated witness P2WPKH and P2WSH outputs, with address version 6 for P2WPKH and 10 for P2WSH on "
          "mainnet.", "171c3929af95435198ab064ebf929686bbd940f4"),
    146: ("2016-08-16", "BIP 146: Dealing with signature malleability: ECDSA signatures must use a low S value "
          "(LOW_S), and the extra stack element consumed by OP_CHECKMULTISIG must be the empty byte array "
          "(NULLDUMMY), deployed with segwit.", "0aa7bfc0f98d1a02bad48ddd40751a2dabf3571f"),
    151: ("2016-03-23", "BIP 151: Peer-to-Peer Communication Encryption: a peer can encrypt its communication with "
          "remote peers by an ECDH negotiation in both directions (encinit and encack messages) and "
          "chacha20-poly1305@openssh.com.", "0607a34fcfd139f02a9232449f88cdd3501d9a18"),
    321: ("2024-11-15", "BIP 321: URI Scheme: a URI scheme for making Bitcoin payments, bitcoin:<address> with "
          "amount, label, message and req- parameters; the address may be base58, bech32 or bech32m.",
          "1209143a4063db4b350e8f463bd1abcb4349b850"),
    322: ("2018-09-10", "BIP 322: Generic Signed Message Format: a standard for interoperable signed messages based on "
          "the Bitcoin Script format, for proving fund availability or committing to a message as the intended "
          "recipient of funds.", "06d39c35fa60fb165fd19d1eaffb0c52d2ea1661"),
    324: ("2019-03-08", "BIP 324: Version 2 P2P Encrypted Transport Protocol: a new Bitcoin P2P transport protocol "
          "with opportunistic encryption, a mild bandwidth reduction, and the ability to negotiate upgrades before "
          "exchanging application messages.", "175c5c06e03f469038d4de96a4e6acfb444b8c59"),
    350: ("2020-12-16", "BIP 350: Bech32m format for v1+ witness addresses: an improved variant of Bech32 called "
          "Bech32m, and BIP173 amended to use Bech32m for native segregated witness outputs of version 1 and later; "
          "Bech32 remains in use for version 0.", "0310d9eeb1eda5e3626a738394f58b4ee3252074"),
    370: ("2021-01-14", "BIP 370: PSBT Version 2: a second version of the Partially Signed Bitcoin Transaction format "
          "described in BIP 174 which allows inputs and outputs to be added to the PSBT after creation.",
          "0297db50eff50b6e582f0060a6a96c06e80c12f1"),
}
#: Records read for their "Created:" date and their label, no licence in the copy read: number -> (date, commit).
BIP_DATED = {12: ("2011-10-18", "1f64d2b06d628dffdc297be9a8afbb9da4e6b6ca"),  # "Created: 18-10-2011"
             16: ("2012-01-03", "0297db50eff50b6e582f0060a6a96c06e80c12f1"),
             21: ("2012-01-29", "0297db50eff50b6e582f0060a6a96c06e80c12f1")}
#: Read records whose dates rise with their numbers: the others (2, 3, 8, 151, 321) keep their own dates only.
BIP_ANCHORS = {1: "2011-08-19", 12: "2011-10-18", 16: "2012-01-03", 21: "2012-01-29", 142: "2015-12-24",
               146: "2016-08-16", 322: "2018-09-10", 324: "2019-03-08", 350: "2020-12-16", 370: "2021-01-14"}


def bip_file(number: int) -> str:
    return f"bip-{number:04d}.mediawiki"


def bitcoin_bips():
    records = [(f"b{n}", day, text, bip_file(n), commit) for n, (day, text, commit) in BIP_READ.items()]
    for n, title in BIP_TITLES.items():
        if n in BIP_DATED:
            day, commit = BIP_DATED[n]
            records.append((f"b{n}", day, f"BIP {n}: {title}.", bip_file(n), commit))
        else:
            records.append((f"b{n}", placed(BIP_ANCHORS, n), f"BIP {n}: {title}.", BIP_INDEX, BIP_INDEX_COMMIT))
    reports = [
        ("r_b3", "b3", "BIP process: BIP 2 was written in 2016, and aspects of its process did not achieve broad "
                       "adoption.", "bip-0003.md", BIP_READ[3][2]),
        ("r_b151", "b151", "The Bitcoin network does not encrypt communication between peers today: this opens up "
                           "security issues (traffic manipulation by others) and allows for mass surveillance and "
                           "analysis of bitcoin users.", bip_file(151), BIP_READ[151][2]),
        ("r_b324", "b324", "The plaintext nature of the current P2P protocol (v1) has severe drawbacks in the presence "
                           "of attackers: a global passive attacker eavesdropping on all Bitcoin P2P connections can "
                           "trivially identify the source and timing of a transaction.", bip_file(324),
         BIP_READ[324][2]),
        ("r_b350", "b350", "Bech32 has an unexpected weakness: whenever the final character is a 'p', inserting or "
                           "deleting any number of 'q' characters immediately preceding it does not invalidate the "
                           "checksum.", bip_file(350), BIP_READ[350][2]),
        ("r_b322", "b322", "The current message signing standard only works for P2PKH (1...) invoice addresses, and "
                           "its ECDSA signatures do not commit to the public key, so they do not actually prove "
                           "knowledge of any secret keys.", bip_file(322), BIP_READ[322][2]),
        ("r_b370", "b370", "Partially Signed Bitcoin Transaction Version 0 as described in BIP 174 is unable to have "
                           "new inputs and outputs added to the transaction: the fixed global unsigned transaction "
                           "cannot be changed.", bip_file(370), BIP_READ[370][2]),
        ("r_b8", "b8", "BIP9 activation depends on near unanimous hashrate signalling, which may be impractical and "
                       "result in veto by a small minority of non-signalling hashrate; its timestamps risk a late "
                       "activation if hashrate is suddenly lost.", bip_file(8), BIP_READ[8][2]),
    ]
    return project(
        "bitcoin-bips", "bitcoin/bips",
        "BSD-2-Clause, BSD-3-Clause, CC0-1.0 or public domain, as each record read states in its License header or "
        "Copyright section (BIPs 12, 16 and 21 carry none in the copy read: only their titles are used)", True,
        "bip-NNNN.mediawiki for the records read (Created: dates); the titles of the others from README.mediawiki at "
        "cacc29a9 (the repository's index of 2017, whose status column marks BIP 1 and BIP 20 Replaced), placed by "
        "number between the read records' dates",
        records, reports,
        # 2 "Replaces: 1"; 3 "Replaces: 2"; 16 "This BIP replaces BIP 12"; 21 "a modification of an earlier BIP
        # 0020 ... The alternative payment amounts in BIP 0020 have been removed" and the index's "Replaced" for 20;
        # 324 "Replaces: 151"; 350 "Replaces: 173"
        updates=[("b1", "b2"), ("b2", "b3"), ("b12", "b16"), ("b20", "b21"), ("b151", "b324"), ("b173", "b350")],
        unnamed=[("b12", "b16"), ("b20", "b21"), ("b151", "b324")],
        # 8 "an alternative to BIP9" (9 stays Final); 146 "extracted from the previous BIP62 proposal"; 321 the same
        # title and author as 21, no Replaces header in the copy read; 142 and 173 both segwit address formats
        ambiguous=[("b9", "b8"), ("b62", "b146"), ("b21", "b321"), ("b142", "b173")])


# --- ethereum/EIPs ------------------------------------------------------------------------------------------------
EIP_READ = {
    # the copies of EIP 158 and 161 are their issue texts "fetched on 2017-06-23", without title or creation date: both
    # carry that date (158 before 161 by number)
    158: ("2017-06-23", "EIP-158: an account whose state change leaves it with nonce 0, balance 0, empty code and "
          "empty storage (an empty account) is deleted instead; a touched empty account is deleted; zero-value calls "
          "no longer consume the 25000 account creation gas.", "0ab7d52abaaa7e8dcbf305acc448944fe539e1e2"),
    161: ("2017-06-23", "EIP-161: account creation increments the nonce by one before the initialisation code runs; "
          "the 25,000 gas of CALL and SUICIDE is charged only when the operation transfers more than zero value to a "
          "dead account; at the end of the transaction any touched account that is now empty is deleted.",
          "0ab7d52abaaa7e8dcbf305acc448944fe539e1e2"),
    1087: ("2018-05-17", "EIP-1087: Net gas metering for SSTORE operations: a dirty map per transaction tracks the "
           "storage slots modified; writes to a dirty slot cost 200 gas, with refunds at the end of the transaction.",
           "280cbef72de2fb15a25130ac6e783cbf2aed2e89"),
    1283: ("2018-08-01", "EIP-1283: Net gas metering for SSTORE without dirty maps: SSTORE gas is computed from the "
           "slot's original, current and new values; a no-op costs 200 gas, and a dirty slot costs 200 gas with "
           "refunds when it is reset.", "001ccad32db54425f0632528511d7d6f876094b0"),
    1706: ("2019-01-15", "EIP-1706: Disable SSTORE with gasleft lower than call stipend: if gasleft is less than or "
           "equal to 2300, SSTORE fails the current call frame with an out of gas exception.",
           "06613c378af4af1ac9eb06dd03ee81bec3012bfd"),
    2200: ("2019-07-18", "EIP-2200: Structured Definitions for Net Gas Metering: SSTORE gas and refunds are computed "
           "from original, current and new values with the parameters SLOAD_GAS (800), SSTORE_SET_GAS, "
           "SSTORE_RESET_GAS and SSTORE_CLEARS_SCHEDULE, and SSTORE fails if gasleft is at most the gas stipend.",
           "01b66af08d050cf03331d3e86845d8a4ea901daa"),
    2565: ("2020-03-20", "EIP-2565: Repricing of the EIP-198 ModExp precompile: the GQUADDIVISOR parameter of the "
           "ModExp pricing formula is set to 200 at the fork block.", "056c9924f80c9268179957c6fb3d4349a1b7c981"),
    2711: ("2020-06-11", "EIP-2711: Separate gas payer from msg.sender: a transaction may be wrapped in a second signed "
           "envelope from which a GAS_PAYER account is recovered, which pays all gas while the inner signer stays "
           "msg.sender.", "04e1fe410fc304ddf42815ac15ec32da640eac37"),
    2718: ("2020-06-13", "EIP-2718: Typed Transaction Envelope: rlp([TransactionType, Payload]) becomes a valid "
           "transaction, an envelope for future transaction types; the first type wraps a legacy transaction.",
           "01c9908185f8e22bffdfe4833aacba8825824823"),
    3074: ("2020-10-15", "EIP-3074: AUTH and AUTHCALL opcodes: AUTH sets an authorized context variable from an "
           "ECDSA signature and AUTHCALL sends a call as that account, delegating control of an EOA to a smart "
           "contract.", "0427357b172949f1a1132989ae20608d0ef2aa09"),
    3298: ("2021-02-26", "EIP-3298: Removal of refunds: remove gas refunds for SSTORE and SELFDESTRUCT.",
           "280cbef72de2fb15a25130ac6e783cbf2aed2e89"),
    3529: ("2021-04-22", "EIP-3529: Reduction in refunds: remove gas refunds for SELFDESTRUCT, reduce the SSTORE "
           "clearing refund to 4,800 gas and cap the refund at a fifth of the gas used.",
           "09ebd44d3bbc631e24af7c93ee7a8b196aae9b70"),
    4488: ("2021-11-23", "EIP-4488: Transaction calldata gas cost reduction with total calldata limit: calldata costs "
           "3 gas per byte, zero or nonzero, and a block's total calldata is capped near 1 MB.",
           "280cbef72de2fb15a25130ac6e783cbf2aed2e89"),
    6780: ("2023-03-25", "EIP-6780: SELFDESTRUCT only in same transaction: SELFDESTRUCT sends all Ether to the target "
           "but no longer deletes the account, except when called in the same transaction as the contract's "
           "creation.", "059b9c0f15cf30390bbb0bea149917eddf320e27"),
    7702: ("2024-05-07", "EIP-7702: Set Code for EOAs: a new transaction type whose authorization list writes a "
           "delegation indicator (0xef0100 || address) into an EOA's code, so that code executing operations run the "
           "delegated code.", "00cc881b63686b9e7b5cd543ea0285edc27bf2d5"),
}


def ethereum_eips():
    records = [(f"e{n}", day, text, f"EIPS/eip-{n}.md", commit) for n, (day, text, commit) in EIP_READ.items()]
    reports = [
        ("r_e1087", "e1087", "SSTORE charges 20,000 gas to set a slot from 0 and 5,000 for any other change, so a "
                             "contract that increments a slot 5 times pays 45000 gas though only one write reaches "
                             "disk.", "EIPS/eip-1087.md", EIP_READ[1087][2]),
        ("r_e1706", "e1706", "EIP-1283 significantly lowers the gas cost of writing to contract storage, which "
                             "created a danger of a new kind of reentrancy attack on existing contracts, as Solidity "
                             "grants a 2300 gas stipend to simple transfer calls.", "EIPS/eip-1706.md",
         EIP_READ[1706][2]),
        ("r_e3529", "e3529", "Gas refunds have had unexpected harmful consequences: refunds give rise to GasToken and "
                             "increase block size variance, up to nearly twice the on-paper gas limit.",
         "EIPS/eip-3529.md", EIP_READ[3529][2]),
        ("r_e3074", "e3074", "It has become common for EOAs to hold valuable assets without holding any ether at all, "
                             "and without ether to pay for gas they cannot convert those assets.", "EIPS/eip-3074.md",
         EIP_READ[3074][2]),
        ("r_e4488", "e4488", "Transaction fees on L1 have been very high for months, and even the lower fees of "
                             "rollups are too expensive for many users.", "EIPS/eip-4488.md", EIP_READ[4488][2]),
        ("r_e6780", "e6780", "SELFDESTRUCT requires large changes to the state of an account, removing all code and "
                             "storage, which will not be possible in the future with Verkle trees.",
         "EIPS/eip-6780.md", EIP_READ[6780][2]),
    ]
    return project(
        "ethereum-eips", "ethereum/EIPs",
        "CC0-1.0 (each EIP read waives copyright via CC0; the repository's LICENSE.md, read at 00c18651, is CC0 1.0 "
        "Universal)", True,
        "EIPS/eip-N.md for every record (created: dates; EIP 158 and 161, whose copies are their issue texts "
        "'fetched on 2017-06-23' with no creation date, carry that date)",
        records, reports,
        # 1706 "status: Superseded ... superseded-by: 2200" and "EIP2200 has superseded EIP1706"; 2200 "replaces the
        # original EIP-1283 value definitions of gas by parameters" (a combined version of 1283 and 1706); 161 "Same as
        # #158 except that several edge cases are avoided"
        updates=[("e1283", "e2200"), ("e1706", "e2200"), ("e158", "e161")],
        unnamed=[("e1283", "e2200"), ("e1706", "e2200"), ("e158", "e161")],
        # 1283 "acts as an alternative for EIP-1087"; 3529 "alternative to EIP-3298 and 3403"; 3074 and 7702 (the
        # replacement is marked only in versions not read)
        ambiguous=[("e1087", "e1283"), ("e3298", "e3529"), ("e3074", "e7702")])


# --- XRPLF/XRPL-Standards -----------------------------------------------------------------------------------------
#: Folders of the copy read not read themselves: number -> (title from the folder name, commit of the listing).
XLS_TITLED = {
    1: ("XLS process", "f0bf0451a05c37d99c5bf94c8fffb4ac46c22062"),
    4: ("Trustline URI", "8f87c37b664a1b8749eb428c02cd46119f9b0443"),
    5: ("Tagged addresses", "ccb8dff589c6433b5c2928acc235bb56a39706e6"),
    6: ("Visual account icons", "f0bf0451a05c37d99c5bf94c8fffb4ac46c22062"),
    7: ("Deletable accounts", "f0bf0451a05c37d99c5bf94c8fffb4ac46c22062"),
    9: ("Blinded tags", "68c8bbdaaaa05baeda7834c23bcbdb27757395e2"),
    11: ("Retiring amendments", "992b78555b709a6ea6494847111acb197dffe563"),
    17: ("XFL", "1d42256b80bc99748002fec46de529c8c35758a2"),
    18: ("Bootstrapping", "ccb8dff589c6433b5c2928acc235bb56a39706e6"),
    20: ("Non-fungible tokens", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    21: ("Asset code prefixes", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    22: ("API versioning", "8f87c37b664a1b8749eb428c02cd46119f9b0443"),
    26: ("IOU token metadata", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    30: ("Automated market maker", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    32: ("Tx request URI", "89413dc685ac52995bbf1128f61ffe28ebe8cf94"),
    38: ("Cross-chain bridge", "f0bf0451a05c37d99c5bf94c8fffb4ac46c22062"),
    39: ("Clawback", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    40: ("Decentralized identity", "45a0ddac05fa90e93b213400681bf09787f5c0c2"),
    41: ("XPOP", "89413dc685ac52995bbf1128f61ffe28ebe8cf94"),
    42: ("Plugins", "252a13cf7c79c236a3e69153993244704a8d26a5"),
    45: ("Prepublish validator lists", "e6bad5007d972b2189a436aa3ed87304e00851bb"),
    46: ("Dynamic non-fungible tokens", "68c8bbdaaaa05baeda7834c23bcbdb27757395e2"),
}
XLS_FOLDERS = {1: "XLS-0001-xls-process", 2: "XLS-0002-destination-information",
               3: "XLS-0003-deeplink-signed-transactions", 4: "XLS-0004-trustline-uri", 5: "XLS-0005-tagged-addresses",
               6: "XLS-0006-visual-account-icons", 7: "XLS-0007-deletable-accounts", 8: "XLS-0008-tickets",
               9: "XLS-0009-blinded-tags", 10: "XLS-0010-non-transferable-tokens", 11: "XLS-0011-retiring-amendments",
               12: "XLS-0012-secret-numbers", 13: "XLS-0013-tickets", 15: "XLS-0015-concise-tx-id",
               16: "XLS-0016-nft-metadata", 17: "XLS-0017-xfl", 18: "XLS-0018-bootstrapping",
               20: "XLS-0020-non-fungible-tokens", 21: "XLS-0021-asset-code-prefixes", 22: "XLS-0022-api-versioning",
               23: "XLS-0023-lite-accounts", 24: "XLS-0024-nft-metadata", 25: "XLS-0025-enhanced-secret-numbers",
               26: "XLS-0026-iou-token-metadata", 30: "XLS-0030-automated-market-maker", 32: "XLS-0032-tx-request-uri",
               33: "XLS-0033-multi-purpose-tokens", 34: "XLS-0034-paychan-escrow-for-tokens", 35: "XLS-0035-uritoken",
               37: "XLS-0037-concise-transaction-identifier-ctid", 38: "XLS-0038-cross-chain-bridge",
               39: "XLS-0039-clawback", 40: "XLS-0040-decentralized-identity", 41: "XLS-0041-xpop",
               42: "XLS-0042-plugins", 45: "XLS-0045-prepublish-validator-lists",
               46: "XLS-0046-dynamic-non-fungible-tokens", 85: "XLS-0085-token-escrow"}
#: Records read: number -> (created, the standard's description or abstract in the authors' words, commit).
XLS_READ = {
    2: ("2021-01-01", "XLS-2: XRPL destination information: a standard for encoding destination information with "
        "backwards compatibility for web browsers: any URL prefix with GET parameters to (account), dt (destination "
        "tag) and amount.", "558e78382e921c8af28326ba85b1f3df7857be2d"),
    3: (None, "XLS-3: Sharing and deeplinking signed transactions: a standard for encoding HEX signed transactions "
        "for air-gapped submission, any URL with exactly one folder followed by the HEX.",
        "4f2593752a9f452e9307bcd27f66dfb80edfc9f5"),
    8: ("2020-03-01", "XLS-8: Tickets: supporting out-of-sequence transactions on the XRP Ledger; a Ticket created on "
        "an account may later be used in place of a sequence number.", "0eb761c43b5025ce84f182b852b2dad699bb2c26"),
    10: ("2020-04-05", "XLS-10: Non-Transferable Token (NTT) standard: an issuer creates a trustline from the user to "
         "itself with a nominal balance and rippling disabled, whose 160 bit currency code (type 0xFF) carries the "
         "token's information.", "227ddd8e00497ef8ecf3465312da197f156005f3"),
    12: ("2020-05-13", "XLS-12: Secret Numbers: derive XRPL account keypairs from 8 blocks of 6 digits, five digits of "
         "entropy and a checksum digit per block, for user-friendly, language-agnostic account secrets.",
         "20500626bd2f629fae128eb299bee351eaaa8409"),
    13: ("2020-09-01", "XLS-13: Tickets & Ticket Batching: tickets allow selected transactions on a single account to "
         "be processed out of order; one TicketCreate transaction can create up to 250 Tickets.",
         "0eb761c43b5025ce84f182b852b2dad699bb2c26"),
    15: ("2021-03-09", "XLS-15: Concise Transaction Identifier: a validated transaction is identified by its 4 byte "
         "ledger sequence number and 2 byte index within the ledger, with a checksum byte from the first nibbles of "
         "the ledger and transaction hashes.", "02a016a184fed591efab2acf520e021d0ac3a482"),
    16: ("2021-03-17", "XLS-16: NFT Metadata: metadata for tokens created with a CTI in the currency code is carried "
         "in the memos of a prior transaction from the issuer (description, author, primary and back-up URIs).",
         "2dbd5f2d5d64fb9a688dd22cb153005ab44b8f0d"),
    23: ("2021-08-27", "XLS-23: Lite Accounts: an account with a minimal account root and the asfLiteAccount flag has "
         "an Account Reserve of a fifth of the object reserve, may be sponsored, and cannot own on-ledger objects.",
         "0eb761c43b5025ce84f182b852b2dad699bb2c26"),
    24: ("2022-02-16", "XLS-24: Metadata Structure for XLS-20: a metadata standard for Non Fungible Tokens, a JSON "
         "schema attached to the NFT's metadata, with a base.v0 nftType and an art.v0 nftType for art and "
         "collectibles.", "39d0f0bbf35b1fb3b9eb84e29b35a1c11004552d"),
    25: ("2021-12-10", "XLS-25: Enhanced Secret Numbers: an odd number of blocks with a per-block checksum of a "
         "multiplication by 13 and a prepended information block that says which key type the secret derives.",
         "0c20d8beb41daf9bffb66ad5f172902cbc31d741"),
    33: ("2022-08-05", "XLS-33: Multi-Purpose Tokens (MPTs): a token type that works like a unidirectional trust line "
         "with a single balance, an alternative to trust lines taking about 52 bytes per holder.",
         "04ecb0169f3d4cf348a17678081b40b1a4cb6a74"),
    34: ("2023-01-23", "XLS-34: Token-Enabled Escrows and Payment Channels: the PaychanAndEscrowForTokens amendment "
         "lets Escrows and PayChannels lock Trustline balances, tracked in a new LockedBalance field.",
         "0eb761c43b5025ce84f182b852b2dad699bb2c26"),
    35: ("2023-02-09", "XLS-35: URITokens: lightweight first-class NFTs for XRPL Protocol Chains, an owned URIToken "
         "ledger object identified by its issuer and URI, with mint, burn, buy and sell-offer transactions.",
         "0eb761c43b5025ce84f182b852b2dad699bb2c26"),
    37: ("2023-02-12", "XLS-37: Concise Transaction Identifier (CTID): a way to locate validated transactions using "
         "the ledger sequence number, transaction index and network ID rather than the transaction hash, 16 "
         "uppercase hex nibbles that always begin with a C.", "252a13cf7c79c236a3e69153993244704a8d26a5"),
    85: ("2024-11-07", "XLS-85: Token-Enabled Escrows: the TokenEscrow amendment enables Escrows to hold both "
         "Trustline-based tokens (IOUs) and Multi-Purpose Tokens (MPTs), with the transfer rate captured at escrow "
         "creation.", "336a6a46a8a53c33a40d3e3938639d0a3238d148"),
}
#: Read records whose dates rise with their numbers (XLS-2's "2021-01-01" and XLS-25 keep their own dates only).
XLS_ANCHORS = {8: "2020-03-01", 10: "2020-04-05", 12: "2020-05-13", 13: "2020-09-01", 15: "2021-03-09",
               16: "2021-03-17", 23: "2021-08-27", 24: "2022-02-16", 33: "2022-08-05", 34: "2023-01-23",
               35: "2023-02-09", 37: "2023-02-12", 85: "2024-11-07"}


def xrpl_standards():
    records = [(f"x{n}", day or placed(XLS_ANCHORS, n), text, f"{XLS_FOLDERS[n]}/README.md", commit)
               for n, (day, text, commit) in XLS_READ.items()]
    records += [(f"x{n}", placed(XLS_ANCHORS, n), f"XLS-{n}: {title}.", f"{XLS_FOLDERS[n]}/README.md", commit)
                for n, (title, commit) in XLS_TITLED.items()]
    reports = [
        ("r_x35", "x35", "XLS-20 NFTs: many developers and users of the XRPL remain unsatisfied by its complexity, "
                         "unusual edge-cases, lack of first-class object NFTs, and general difficulty to understand "
                         "and write integrations for.", f"{XLS_FOLDERS[35]}/README.md", XLS_READ[35][2]),
        ("r_x25", "x25", "XLS-12 secret numbers encode no information about the key they derive (secp256k1 or "
                         "Ed25519), and their block-level checksum is inefficient and detects only a small "
                         "percentage of errors.", f"{XLS_FOLDERS[25]}/README.md", XLS_READ[25][2]),
        ("r_x34", "x34", "PayChannels and Escrows support only the native asset XRP, a barrier to wider use for "
                         "regulatory compliance, unwillingness to hold XRP, and exchange-rate risk.",
         f"{XLS_FOLDERS[34]}/README.md", XLS_READ[34][2]),
        ("r_x33", "x33", "As more and more token issuers embrace the XRP Ledger, the current size of each trust line "
                         "(at least 234 bytes) will become an impediment to ledger stability and scalability.",
         f"{XLS_FOLDERS[33]}/README.md", XLS_READ[33][2]),
        ("r_x23", "x23", "The Account Reserve (5 XRP to create an account and 15 XRP locked up) acts as a barrier to "
                         "entry for new users and remains a major impediment to the expansion of the ecosystem.",
         f"{XLS_FOLDERS[23]}/README.md", XLS_READ[23][2]),
    ]
    return project(
        "xrpl-standards", "XRPLF/XRPL-Standards", "MIT (LICENSE, 176ace26)", True,
        "XLS-NNNN-*/README.md for the records read (created: dates); the standards of the copy read by number and "
        "folder name (one folder per number; the older 'd' folders of a number are left out)",
        records, reports,
        # 8 "withdrawal-reason: Superseded by XLS-13"; 37 "This proposal replaces the original proposal for Concise
        # Transaction Identifiers XLS-15d" (15 "Superseded by XLS-37" in a later version); 34 "withdrawal-reason:
        # Superseded by XLS-85" and 85 "This proposal, XLS-85, replaces XLS-34"
        updates=[("x8", "x13"), ("x15", "x37"), ("x34", "x85")],
        unnamed=[("x8", "x13"), ("x15", "x37"), ("x34", "x85")],
        # 25 "Enhancements to XLS-12", retaining backwards compatibility with XLS-12 secrets
        ambiguous=[("x12", "x25")])


# --- cardano-foundation/CIPs --------------------------------------------------------------------------------------
CIP_INDEX = "README.md"
CIP_INDEX_COMMIT = "00589140376a8569ed37a0f40df4addb842d3cb0"  # "Last updated on 2023-07-02"
#: Titles of the records not read, as the index lists them.
CIP_TITLES = {
    2: "Coin Selection Algorithms for Cardano", 3: "Wallet key generation", 4: "Wallet Checksums",
    5: "Common Bech32 Prefixes", 6: "Stake Pool Extended Metadata", 7: "Curve Pledge Benefit", 8: "Message Signing",
    10: "Transaction Metadata Label Registry", 11: "Staking key chain for HD wallets",
    12: "On-chain stake pool operator to delegates communication", 13: "Cardano URI Scheme",
    14: "User-Facing Asset Fingerprint", 16: "Cryptographic Key Serialisation Formats",
    17: "Cardano Delegation Portfolio", 18: "Multi-Stake-Keys Wallets", 19: "Cardano Addresses",
    20: "Transaction message/comment metadata",
    21: "Transaction requirements for interoperability with hardware wallets", 22: "Pool operator verification",
    24: "Non-Centralizing Rankings", 26: "Cardano Off-Chain Metadata", 27: "CNFT Community Royalties Standard",
    29: "Phase-1 Monetary Scripts Serialization Formats", 30: "Cardano dApp-Wallet Web Bridge",
    31: "Reference Inputs", 32: "Inline Datums", 33: "Reference Scripts", 34: "Chain ID Registry",
    35: "Plutus Core Evolution", 40: "Collateral Output", 42: "New Plutus Builtin: serialiseBuiltinData",
    49: "ECDSA and Schnorr signatures in Plutus Core", 52: "Cardano Audit Best Practice Guidelines",
    54: "Cardano Smart NFTs", 57: "Plutus Smart-Contract Blueprint", 58: "Plutus Bitwise Primitives",
    59: "Terminology Surrounding Core Features", 60: "Music Token Metadata", 67: "Asset Name Label Registry",
    68: "Datum Metadata Standard", 69: "Plutus Script Type Uniformization",
    71: "Non-Fungible Token (NFT) Proxy Voting Standard", 72: "DApp Registration",
    75: "Fair Stake Pool Rewards", 80: "Transaction Serialization Deprecation Cycle", 84: "Cardano Ledger Evolution",
    85: "Sums-of-products in Plutus Core", 86: "NFT Metadata Update Oracles", 94: "SPO On-chain Polls",
    381: "Plutus Support for Pairings Over BLS12-381", 1694: "A proposal for entering the Voltaire phase",
    1852: "HD (Hierarchy for Deterministic) Wallets for Cardano",
    1853: "HD (Hierarchy for Deterministic) Stake Pool Cold Keys for Cardano", 1854: "Multi-signatures HD Wallets",
    1855: "Forging policy keys for HD Wallets", 9999: "Cardano Problem Statements",
}
#: Records read: number -> (the record's "Created:" date, its abstract in the authors' words, commit).
CIP_READ = {
    1: ("2020-03-21", "CIP-1: CIP Process: a CIP is a formalised design document for the Cardano community; CIPs can "
        "have three statuses, Proposed, Active or Inactive, an Inactive status giving its reason in parentheses.",
        "0027c630b3c70e02422814da61492ae6ef20e9b6"),
    9: ("2021-01-29", "CIP-9: Protocol Parameters (Shelley Era): the initial protocol parameter settings for the "
        "Shelley era, plus the changes made: nOpt 150, a0 0.3, minPoolCost 340000000 lovelace, minUTxOValue 1000000 "
        "lovelace.", "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    15: ("2020-01-05", "CIP-15: Catalyst Registration Transaction Metadata Format: a voter registration transaction "
         "registers a voting key, associates the staking key's Ada with it and declares a reward address, in "
         "metadata label 61284.", "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    23: ("2021-02-04", "CIP-23: Fair Min Fees: reduce the minimum fixed pool fee and add a minimum variable pool fee, "
         "a new protocol parameter minPoolMargin enforced beside minPoolCost.",
         "0279d2648eb118ff629ce8d8c9057ef0ec7ea827"),
    25: ("2021-04-08", "CIP-25: NFT Metadata Standard: NFT metadata for native tokens is attached under label 721 in "
         "the minting transaction, with name and image required; the latest mint transaction with label 721 holds "
         "the valid metadata.", "04e1243b03757d5e819d1cfffa4581a5560a98fe"),
    28: ("2021-10-14", "CIP-28: Protocol Parameters (Alonzo Era): the new protocol parameters introduced for Alonzo, "
         "relating to the costing of Plutus scripts (executionPrices, maxTxExUnits, collateralPercentage, "
         "costModels); lovelacePerUTxOWord replaces minUTxOValue.", "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    36: ("2021-12-06", "CIP-36: Catalyst/Voltaire Registration Transaction Metadata Format (Updated): a registration "
         "transaction delegates voting power to one or more voting keys with weights, declares a reward address and "
         "a voting purpose, and a deregistration removes it.", "0750cb169a3507115278749019e93571576cb27a"),
    37: ("2021-12-03", "CIP-37: Dynamic Saturation Based on Pledge: the pledge should be used to calculate the "
         "saturation point of a pool, setting a maximum delegation proportional to pledge.",
         "1267846b737d3f4639cb56475489749db93fc023"),
    55: ("2022-05-19", "CIP-55: Protocol Parameters (Babbage Era): lovelacePerUTxOWord becomes coinsPerUTxOByte, based "
         "on bytes instead of words, and the decentralization and extra entropy parameters are removed.",
         "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    74: ("2022-10-17", "CIP-74: Set minPoolCost to 0: a protocol parameter update assigning minPoolCost the value 0, "
         "to create a fair marketplace for stake pools.", "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    82: ("2022-01-03", "CIP-82: Improved Rewards Scheme Parameters: minPoolCost decreased to 170 ADA, then deleted in "
         "favour of a minPoolRate of 3%, and k raised to 750 and then 1000, in four stages.",
         "0d899d77d6f23e0982defdb49e82807d4cf0318e"),
    83: ("2022-12-08", "CIP-83: Encrypted Transaction message/comment metadata (Addendum to CIP-0020): an enc entry "
         "in label 674 marks a message encrypted with aes-256-cbc and a passphrase, by default 'cardano'; fully "
         "backwards compatible.", "024aa227694a01d5671196841d33c42eae4b7ecc"),
}
#: Read records whose dates rise with their numbers (CIP-15, 36 and 82 keep their own dates only).
CIP_ANCHORS = {1: "2020-03-21", 9: "2021-01-29", 23: "2021-02-04", 25: "2021-04-08", 28: "2021-10-14",
               37: "2021-12-03", 55: "2022-05-19", 74: "2022-10-17", 83: "2022-12-08"}


def cardano_cips():
    records = [(f"c{n}", day, text, f"CIP-{n:04d}/README.md", commit) for n, (day, text, commit) in CIP_READ.items()]
    records += [(f"c{n}", placed(CIP_ANCHORS, n), f"CIP-{n}: {title}.", CIP_INDEX, CIP_INDEX_COMMIT)
                for n, title in CIP_TITLES.items()]
    reports = [
        ("r_c74", "c74", "A minPoolCost of 340 ADA/epoch makes popularity the basis for pool desirability: stake "
                         "centralizes with operators who are effective at campaigning but have no stake of their "
                         "own.", "CIP-0074/README.md", CIP_READ[74][2]),
        ("r_c82", "c82", "minPoolCost imposes a proportionally greater staking fee on small stakepools, so many small "
                         "pools are unviable and the network centralizes around established pools; Cardano's minimum "
                         "attack vector is declining.", "CIP-0082/README.md", CIP_READ[82][2]),
        ("r_c23", "c23", "The current minimum fixed pool fee places a large and unfair burden on delegators to pools "
                         "with smaller amounts of stake.", "CIP-0023/README.md", CIP_READ[23][2]),
        ("r_c37", "c37", "Cardano has been plagued with an ever increasing number of single entity stake pool "
                         "operators creating multiple pools: at least 23 single entities hold 50% of the total "
                         "stake.", "CIP-0037/README.md", CIP_READ[37][2]),
        ("r_c83", "c83", "Transaction messages via CIP-0020 are sent in plaintext over the network and the blockchain: "
                         "any man-in-the-middle can collect data such as bank account numbers or email addresses.",
         "CIP-0083/README.md", CIP_READ[83][2]),
        ("r_c55", "c55", "The minimum lovelace formula of an unspent output was changed in the Mary era and again in "
                         "the Alonzo era, and both formulas bound the size in memory of the Haskell implementation.",
         "CIP-0055/README.md", CIP_READ[55][2]),
    ]
    return project(
        "cardano-cips", "cardano-foundation/CIPs",
        "CC-BY-4.0 or Apache-2.0, as each CIP read states in its License header", True,
        "CIP-NNNN/README.md for the records read (Created: dates); the titles of the others from README.md at "
        "00589140 (the repository's index, 'Last updated on 2023-07-02'), placed by number between the read "
        "records' dates",
        records, reports,
        # 36 "This is a revised version of the original CIP-15"
        updates=[("c15", "c36")], unnamed=[("c15", "c36")],
        # 28 "supplements rather than replaces CIP-0009" though lovelacePerUTxOWord replaces minUTxOValue; 55 "extends
        # CIP-0028 to introduce a change to one of the Alonzo protocol parameters"; 83 an addendum to CIP-0020
        ambiguous=[("c9", "c28"), ("c28", "c55"), ("c20", "c83")])


ABOUT = (
    "Session 38's first held-out set of decision records (sources, licences and the commit read per record; README.md, "
    "section 'Held out, session 38'): Bitcoin BIPs, Ethereum EIPs, XRP Ledger standards and Cardano CIPs, one memory "
    "per record: its number, title and, where read, its decision or abstract in the authors' words trimmed to a "
    "sentence or two. `updates` are the pairs the authors marked (older first); `updates_unnamed` repeats those whose "
    "newer memory does not cite the older by number; `ambiguous` pairs count neither way; `reports` report on a "
    "subject and never supersede anything. Every other link is wrong. Split `held-out-s38` for every project: "
    "committed before any run, never tuned on, run once by the lead (bench/public_links.py --held-out-s38). Built by "
    "bench/build_adr_held_out_s38.py.")


def build() -> dict:
    return {"_about": ABOUT, "projects": [bitcoin_bips(), ethereum_eips(), xrpl_standards(), cardano_cips()]}


def main() -> int:
    data = build()
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    ps = data["projects"]
    print(f"{OUT}: {len(ps)} projects, {sum(len(p['memories']) for p in ps)} memories, "
          f"{sum(len(p['updates']) for p in ps)} update pairs ({sum(len(p['updates_unnamed']) for p in ps)} unnamed), "
          f"{sum(len(p['ambiguous']) for p in ps)} ambiguous, {sum(len(p['reports']) for p in ps)} reports")
    for p in ps:
        print(f"  {p['name']:<24} {len(p['memories']):>4} memories  {len(p['updates']):>2} updates "
              f"({len(p['updates_unnamed'])} unnamed)  {len(p['ambiguous'])} ambiguous  {len(p['reports'])} reports")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
