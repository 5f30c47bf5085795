"""Build bench/data/public_links/adr_projects_s39.json: session 38's second held-out set of decision records.

    python bench/build_adr_held_out_s39.py          # writes the file (deterministic: same input, same bytes)

This file IS the transcription (README.md beside the data, section "Held out, session 39"). Every public set before
it is spent, session 38's first set (adr_projects_s38.json) included, so it takes five more series of records, none
of them used by an earlier set and none of them a blockchain series of that first set:

* xsf/xeps -- XMPP Extension Protocols: a `<supersedes>` or `<supersededby>` header, or a record's own words ("this
  document has been superseded by XEP-0144", "retracted in favor of Jingle (XEP-0166)");
* filecoin-project/FIPs -- Filecoin Improvement Proposals: a `replaces:` header, the repository index's "Superseded
  by FIP0092", or a later FIP's own words ("Revert FIP-0009", "builds on and supersedes FIP-0047");
* zcash/zips -- Zcash Improvement Proposals: an "Obsoletes:" header;
* near/NEPs -- NEAR Enhancement Proposals: `SupersededBy:` and `Replaces:` headers;
* tendermint/tendermint -- the Tendermint architecture decision records (docs/architecture): none marked, a series
  with no update at all, the test of false supersession on its own.

One memory per record: its number and title and, where the record was read, its decision or abstract, trimmed to a
sentence or two (in the authors' words where the copy read was quoted; FIP-0009 and the ZIP records, read for their
headers and dates, in a shorter paraphrase of their abstract); where it was not read, its number and title alone, from
the repository's own index (xep.ent's entity list of XEP titles as it stood in 2010, FIPs' README.md, zips'
README.rst, NEPs' README.md, tendermint's docs/architecture/README.md). Licences: every XEP carries the XSF's legal
notice (xep.ent), an MIT-style permission to copy, modify and publish the specification (XEP-0024, "placed in the
public domain"); each FIP and NEP read waives copyright via CC0; zcash/zips is MIT (README.rst, "Unless otherwise
stated"); tendermint is Apache-2.0 (LICENSE).

* `updates` are the pairs the authors marked (older first). Those whose newer memory does not cite the older one by
  number are listed again in `updates_unnamed`: the realistic case, the new state in new words. Several are
  look-alikes, the same title twice: XEP-0091 and XEP-0203 "Delayed Delivery", XEP-0090 and XEP-0202 "Entity Time",
  XEP-0087 and XEP-0095 "Stream Initiation", XEP-0093 and XEP-0144 "Roster Item Exchange", FIP-0090 and FIP-0092
  "Non-Interactive PoRep", NEP-21 and NEP-141 "Fungible Token Standard". Four retracted publish-subscribe proposals
  (XEP-0021, 0024, 0036, 0040) all name the one XEP-0060 that replaced them, three bytestream ones (XEP-0041, 0042,
  0046) XEP-0065, and XEP-0052 "File Transfer" the two records that replaced it (XEP-0095 and 0096).
* `ambiguous` (counted neither way): a newer record that offers a "more modern" or simpler protocol without retiring
  the older (XEP-0022 and XEP-0085; XEP-0136 and XEP-0313, "a server is free to implement XEP-0136 alongside"),
  a competing proposal of the same time (XEP-0024 and XEP-0036), a supersession the authors withdrew ("removed
  XEP-0126 from list of protocols that this specification supersedes"), a conditional one ("If this SDM proposal were
  to be accepted, FIP-0052 would be withdrawn"; FIP-0056 was rejected), a revival of a rejected proposal (FIP-0036,
  FIP-0056), an extension (FIP-0037 "expands on FIP-0032"), a stopgap that keeps governing existing deals (FIP-0060
  and FIP-0074), a draft's `replaces:` never adopted (FIP-0003 and FIP-0078), the dev-fund ZIPs (1012, an obsolete
  alternative, and 1014, the adopted one; 1014 and 1015, the allocation after its four years), and two Tendermint
  records on one subject, neither saying it replaces the other (ADR-015 and ADR-054 on key encoding; ADR-038 and
  ADR-078 on a non-zero start height; ADR-068 and ADR-080 on reverse sync).
* `reports`: sentences of a record's motivation about a problem seen, dated the day before the record that cites them.
  Most are about an older standing record's subject (presence overloaded as an event bus before pubsub; XEP-0018's
  invisible presence before the invisible command; XEP-0136's implementation effort before XEP-0313; NEP-21's escrow
  before NEP-141): a link from one is wrong.
* dates: the records' own (an XEP's first `<revision>` date, a FIP's, ZIP's or NEP's "Created:", a Tendermint ADR's
  first changelog entry); a record without one is placed by its number, linear between the dates the same
  repository's read records give (`ANCHORS` per project), so for those only the order is the authors'. XEP and FIP
  numbers are close to chronological; ZIP numbers are not (the 1000s are the 2019 dev-fund proposals), so the ZIPs
  have two anchor series; FIP-0015's "created: 2020-05-20" precedes the FIP-0009 it reverts (2020-12-15) and is
  placed by number instead.

Records about the same subject that stay in force are kept on purpose, the test of false supersession: the Jingle
XEPs (166, 167, 176, 177, 180), the encrypted-session XEPs (116, 187, 188, 210, 217, 218), the 2008 compliance
suites (211, 212, 213, 216) beside the protocol suites (73, 117, 119); the FIL+ and sector-commitment FIPs (3, 12, 28,
45, 52, 78, 80); the NFT NEPs (171, 177, 178, 181, 199); the Tendermint light-client ADRs (44, 46, 47) and the
ABCI ones. Every other link is wrong.
Nothing here was run through the linker before the file was committed: the whole file is held out (split
`held-out-s39`), run once by the lead, never tuned on.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from functools import partial
from pathlib import Path

import adr_records  # bench/ is not a package: the shared helpers are imported from this folder
from adr_records import placed

OUT = Path(__file__).resolve().parent / "data" / "public_links" / "adr_projects_s39.json"
SPLIT = "held-out-s39"
project = partial(adr_records.project, SPLIT)


# --- xsf/xeps -----------------------------------------------------------------------------------------------------
XEP_INDEX = "xep.ent"
XEP_INDEX_COMMIT = "baa9a73b7320854f7fd4bdf19faf6f286cb0f8d0"  # the entity file of 2010: XSF legal notice, XEP titles
#: Titles of the records not read, as xep.ent's entities xep0001..xep0218 give them (a XEP read below is left out).
XEP_TITLES = {
    1: "XMPP Extension Protocols", 2: "Special Interest Groups", 3: "Proxy Accept Socket Service", 4: "Data Forms",
    8: "IQ-Based Avatars", 9: "Jabber-RPC", 11: "Jabber Browsing", 12: "Last Activity",
    13: "Flexible Offline Message Retrieval", 16: "Privacy Lists", 18: "Invisible Presence",
    19: "Streamlining the SIGs", 20: "Feature Negotiation", 21: "Jabber Event Notification Service",
    22: "Message Events", 23: "Message Expiration", 24: "Publish/Subscribe", 25: "Jabber HTTP Polling",
    26: "Internationalization", 27: "Current Jabber OpenPGP Usage", 29: "Definition of Jabber Identifiers",
    30: "Service Discovery", 31: "A Framework for Securing Jabber Conversations", 32: "Jabber URI Scheme",
    33: "Extended Stanza Addressing", 34: "SASL Integration", 35: "SSL/TLS Integration", 36: "Pub-sub Subscriptions",
    38: "Icon Styles", 39: "Statistics Gathering", 40: "Robust Publish-Subscribe", 41: "Jidlink",
    42: "Jabber OOB Broadcast Service", 43: "Jabber Database Access", 44: "Full Namespace Support in XML Streams",
    45: "Multi-User Chat", 46: "Direct TCP", 47: "In-Band Bytestreams", 48: "Bookmark Storage",
    49: "Private XML Storage", 50: "Ad-Hoc Commands", 51: "Redirect and Connection Transfer", 52: "File Transfer",
    53: "XMPP Registrar Function", 54: "vcard-temp", 55: "Jabber Search", 56: "Business Data Interchange",
    57: "Extended Roster", 58: "Multi-User Text Editing", 59: "Result Set Management", 60: "Publish-Subscribe",
    61: "Shared Notes", 62: "Packet Filtering", 63: "Basic Filtering Operations", 64: "XPath Filtering",
    65: "SOCKS5 Bytestreams", 66: "Out-of-Band Data", 67: "Stock Data Transmission",
    68: "Field Standardization for Data Forms", 69: "Compliance SIG", 70: "Verifying HTTP Requests via XMPP",
    71: "XHTML-IM", 72: "SOAP over XMPP", 73: "Basic IM Protocol Suite", 74: "Simple Access Control",
    75: "Jabber Object Access Protocol", 76: "Malicious Stanzas", 77: "In-Band Registration",
    78: "Non-SASL Authentication", 79: "Advanced Message Processing", 80: "User Geolocation", 81: "Jabber MIME Type",
    82: "XMPP Date and Time Profiles", 83: "Nested Roster Groups", 84: "User Avatar", 85: "Chat State Notifications",
    86: "Error Condition Mappings", 87: "Stream Initiation", 88: "Client Webtabs", 89: "Generic Alerts",
    90: "Legacy Entity Time", 91: "Legacy Delayed Delivery", 92: "Software Version", 93: "Roster Item Exchange",
    94: "Agent Information", 95: "Stream Initiation", 96: "SI File Transfer", 97: "iCal Envelope",
    98: "Enchanced Private XML Storage", 99: "IQ Query Action Protocol", 100: "Gateway Interaction",
    101: "HTTP Authentication using Jabber Tickets", 102: "Security Extensions", 103: "URL Address Information",
    104: "HTTP Scheme for URL Data", 105: "Tree Transfer Stream Initiation Profile", 106: "JID Escaping",
    107: "User Mood", 108: "User Activity", 109: "Vacation Messages", 110: "Generic Maps",
    111: "A Transport for Initiating and Negotiating Sessions", 112: "User Physical Location",
    113: "Simple Whiteboarding", 114: "Jabber Component Protocol", 115: "Entity Capabilities",
    116: "Encrypted Session Negotiation", 117: "Intermediate IM Protocol Suite", 118: "User Tune",
    119: "Extended Presence Protocol Suite", 120: "Infobits", 121: "Dublin Core Infobits Mapping",
    122: "Data Forms Validation", 123: "Entity Metadata", 124: "Bidirectional-streams Over Synchronous HTTP",
    125: "vCard Infobits Mapping", 126: "Invisibility", 127: "Common Alerting Protocol (CAP) over XMPP",
    128: "Service Discovery Extensions", 129: "WebDAV File Transfers", 130: "Waiting Lists",
    131: "Stanza Headers and Internet Metadata", 132: "Presence Obtained via Kinesthetic Excitation (POKE)",
    133: "Service Administration", 134: "XMPP Design Guidelines", 135: "File Sharing", 136: "Message Archiving",
    137: "Publishing Stream Initiation Requests", 138: "Stream Compression", 139: "Security SIG",
    140: "Shared Groups", 141: "Data Forms Layout", 142: "Workgroup Queues",
    143: "Guidelines for Authors of XMPP Extension Protocols", 144: "Roster Item Exchange", 145: "Annotations",
    146: "Remote Controlling Clients", 147: "XMPP URI Query Components",
    148: "Instant Messaging Intelligence Quotient (IM IQ)", 149: "Time Periods",
    150: "Use of Entity Tags in XMPP Extensions", 151: "Virtual Presence", 152: "Reachability Addresses",
    153: "vCard-Based Avatars", 154: "User Profile", 155: "Stanza Session Negotiation",
    156: "Discovering Alternative XMPP Connection Methods", 157: "Contact Addresses for XMPP Services",
    158: "CAPTCHA Forms", 159: "SPIM-Blocking Control", 160: "Best Practices for Handling Offline Messages",
    161: "SPIM Reporting", 162: "Best Practices for Roster and Subscription Management",
    163: "Personal Eventing Protocol", 164: "vCard Filtering", 165: "Best Practices to Prevent JID Mimicking",
    166: "Jingle", 167: "Jingle RTP Sessions", 168: "Resource Application Priority",
    169: "Twas The Night Before Christmas (Jabber Version)", 170: "Recommended Order of Stream Feature Negotiation",
    171: "Language Translation", 172: "User Nickname", 173: "Pubsub Subscription Storage",
    174: "Link-Local Messaging", 175: "Best Practices for Use of SASL ANONYMOUS",
    176: "Jingle ICE-UDP Transport Method", 177: "Jingle Raw UDP Transport Method",
    178: "Best Practices for Use of SASL EXTERNAL", 179: "Jingle IAX Transport Method", 180: "Jingle Video via RTP",
    181: "Jingle DTMF", 182: "Application-Specific Error Conditions", 183: "Jingle Telepathy Transport Method",
    184: "Message Receipts", 185: "Dialback Key Generation and Validation", 186: "Invisible Command",
    187: "Offline Encrypted Sessions", 188: "Cryptographic Design of Encrypted Sessions",
    189: "Public Key Publishing", 190: "Best Practice for Closing Idle Streams",
    191: "Simple Communications Blocking", 192: "Proposed Stream Feature Improvements",
    193: "Proposed Resource Binding Improvements", 194: "User Chatting", 195: "User Browsing", 196: "User Gaming",
    197: "User Viewing", 198: "Stanza Acknowledgements", 199: "XMPP Ping", 200: "Stanza Encryption",
    201: "Best Practices for Message Threads", 202: "Entity Time", 203: "Delayed Delivery",
    204: "Collaborative Data Objects", 205: "Best Practices to Discourage Denial of Service Attacks",
    206: "XMPP Over BOSH", 207: "XMPP Eventing via Pubsub", 208: "Bootstrapping Implementation of Jingle",
    209: "Metacontacts", 210: "Requirements for Encrypted Sessions", 211: "XMPP Basic Client 2008",
    212: "XMPP Basic Server 2008", 213: "XMPP Intermediate IM Client 2008", 214: "File Repository and Sharing",
    215: "External Service Discovery", 216: "XMPP Intermediate IM Server 2008",
    217: "Simplified Encrypted Session Negotiation", 218: "Bootstrapping Implementation of Encrypted Sessions"
}
#: Records read: number -> (the first <revision> date, the record's abstract in the authors' words, commit).
XEP_READ = {
    3: ("2001-06-01", "XEP-0003: Proxy Accept Socket Service (PASS): a method for relaying media via proxies on the "
        "Jabber/XMPP network; a PASS service listens on an IP and port on behalf of a Jabber entity and copies the data "
        "between an incoming connection and that entity.", "0de2b17db94db549037af046b03048a6f030ea0c"),
    8: ("2001-09-14", "XEP-0008: IQ-Based Avatars: a client announces its avatar by a SHA1 hash of the image in a "
        "jabber:x:avatar extension of every presence packet, and the image (32 to 64 pixels, under 8 kilobytes) is "
        "retrieved in the jabber:iq:avatar namespace.", "1b052f88ac3fd1eaba324aab1e71e9ad1434d438"),
    11: ("2001-01-25", "XEP-0011: Jabber Browsing: the jabber:iq:browse namespace describes Jabber entities and the "
         "relationships between them, with JID-Types (category/type, like mime-types) and namespace advertising; its "
         "first use is to replace the jabber:iq:agents namespace.", "1ae344bdeb9657e900a0e301f0eda0143fa6ff25"),
    18: ("2002-01-28", "XEP-0018: Invisible Presence: a user becomes invisible to all or to selected contacts by "
         "sending presence of type 'invisible', and visible again with type 'visible'; the server stops forwarding "
         "presence updates to those contacts.", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    21: ("2002-03-04", "XEP-0021: Jabber Event Notification Service (ENS): a generic publish-and-subscribe dispatcher; "
         "subscribers subscribe to event types named by JIDs, and publishers send notifications with an optional "
         "payload and authorise subscription requests.", "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    22: ("2002-03-05", "XEP-0022: Message Events: the jabber:x:event namespace requests and raises events on a "
         "message's delivery: offline (stored by the server), delivered, displayed, and composing (a reply is being "
         "written, an event that can be cancelled).", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    23: ("2002-03-07", "XEP-0023: Message Expiration: a jabber:x:expire extension gives a message a time to live in "
         "seconds; the servers and clients that store and forward it record when it was stored and discard it once "
         "that time has passed.", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    24: ("2002-03-05", "XEP-0024: Publish/Subscribe: a publish-subscribe protocol in IQ packets of a new "
         "jabber:iq:pubsub namespace, with subscriptions to publishers or to namespaces and publish requests handled "
         "by a pubsub component.", "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    25: ("2002-03-14", "XEP-0025: Jabber HTTP Polling: clients behind firewalls that block port 5222 reach a Jabber "
         "server by periodic HTTP POST requests carrying the XML, with a session identifier and a key sequence for "
         "socket-equivalent security.", "01d87609761ec8147913d5d4bedd13ed69c31daf"),
    36: ("2002-07-12", "XEP-0036: Pub-Sub Subscriptions: the subscribe half of a publish-subscribe protocol, in which a "
         "topic, addressed by a unique topic ID, relates a publisher's items to its subscribers.",
         "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    40: ("2002-08-02", "XEP-0040: Jabber Robust Publish-Subscribe: a robust level of publish-subscribe in which "
         "subscribers detect and repair lost data by link and source sequence numbers and heartbeats, without "
         "acknowledging every packet.", "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    41: ("2002-08-15", "XEP-0041: Reliable Entity Link: coordinates reliable bytestreams between two Jabber entities, "
         "negotiating the stream method (in-band or SOCKS5) under a REL context ID, so that applications need not "
         "name one transport.", "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    42: ("2002-08-14", "XEP-0042: Jabber OOB Broadcast Service (JOBS): uni-directional multicast data transfers out "
         "of band: a sender creates a session with a JOBS service and invites receivers, and the service routes the "
         "data from the sender's connection to each receiver's over a secondary TCP port.",
         "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    46: ("2002-09-12", "XEP-0046: DTCP: a direct TCP socket connection between two Jabber entities, so that a "
         "reliable bytestream can be created out of band; each side offers a key and up to three hosts, and the "
         "connecting client authenticates by exchanging keys, with an optional starttls.",
         "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    52: ("2002-12-03", "XEP-0052: File Transfer: the filexfer namespace offers a file with its name, size, mime-type "
         "and hash, negotiates a stream method (jobs, dtcp, jabber:iq:oob, ibb) and an optional range, and ties the "
         "transferred data to the offer.", "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    57: ("2002-11-12", "XEP-0057: Extended Roster: roster items carry more than a name, subscription and groups: a "
         "category and type, server-side settings in a data form, and client-side information (a description, "
         "always-visible, a conference nick, password and auto-join) in jabber:x:roster:item.",
         "211f9e77a0f074cd7d66cb9da7dbfb1f39333e6d"),
    73: ("2003-03-04", "XEP-0073: Basic IM Protocol Suite: basic instant messaging and presence applications must "
         "support RFC 3920, RFC 3921 and Service Discovery, clients also Entity Capabilities; In-Band Registration "
         "and Error Condition Mappings are recommended.", "0f6be46f250fc1e65466334830f0108087901993"),
    87: ("2003-05-22", "XEP-0087: Stream Initiation: a common method to initiate a stream with meta information: the "
         "sender offers an <si> with a profile and a negotiation of stream methods (s5b, jabber:iq:oob, ibb), and the "
         "receiver accepts by selecting one.", "1c6709362c31c306f5cbcc5806faedacd7d537a6"),
    90: ("2003-05-22", "XEP-0090: Entity Time: the jabber:iq:time namespace lets Jabber entities exchange their local "
         "time: a utc element in the format CCYYMMDDThh:mm:ss, with optional tz and display elements.",
         "1eb2a7a3b98424c613f3e6a2986cc9e156565df5"),
    91: ("2003-05-22", "XEP-0091: Delayed Delivery: the jabber:x:delay namespace stamps a message or presence stored "
         "for later delivery (offline messages, last presence, chat room history) with the time it was originally "
         "sent, in the format CCYYMMDDThh:mm:ss.", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    93: ("2003-05-22", "XEP-0093: Roster Item Exchange: the jabber:x:roster namespace sends roster items from one "
         "entity to another in a message, each item with a JID, an optional nickname and its roster groups.",
         "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    111: ("2003-02-21", "XEP-0111: A Transport for Initiating and Negotiating Sessions (TINS): a SIP-compatible "
          "transport that negotiates out-of-band multimedia sessions by sending SDP in <tins/> messages with SIP "
          "methods such as INVITE, ACK and BYE.", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    135: ("2004-06-04", "XEP-0135: File Sharing: an offering entity shares files under the well-known service "
          "discovery node 'files', with a tree file when it has more than five, and the files are requested and sent "
          "over existing protocols.", "29bee13867aa6dbd22d501dfaf34b1c7f49e959d"),
    136: ("2004-06-04", "XEP-0136: Message Archiving: server-side archiving of XMPP messages, manual (the client "
          "uploads conversations) or automatic (the server archives them as they pass), with archiving preferences, "
          "off-the-record modes and retrieval of collections.", "03c6f656548485cb93e76b9bcf4b202247fed45c"),
    186: ("2006-05-11", "XEP-0186: Invisible Command: an IQ-based protocol in the urn:xmpp:invisible:0 namespace with "
          "which a user becomes invisible or visible at will within one session; it is intended to supersede the "
          "protocol described in XEP-0018.", "927c11edc897f62e4b1ec2a1c59a982331dbf4df"),
    202: ("2006-12-05", "XEP-0202: Entity Time: an entity's local time as its UTC time and its numeric time zone "
          "offset (tzo), both in the profiles of XEP-0082; a replacement for XEP-0090 without its tz and display "
          "elements.", "067239b9e8bee959caf419d93c3dc4f11e9758a0"),
    203: ("2006-12-19", "XEP-0203: Delayed Delivery: a <delay/> element in the urn:xmpp:delay namespace stamps a "
          "stanza delivered with a delay (offline storage, chat room history) with the time it was sent, in the "
          "dateTime profile of XEP-0082 and in UTC.", "058b4393750a3eee0bfc1745919777382ace5d0a"),
    313: ("2012-04-18", "XEP-0313: Message Archive Management: a much simpler and modular protocol to query and "
          "control an archive of messages stored on a server, for history synchronisation between clients, "
          "calendar-based display and infinite scrollback, paged by message UIDs.",
          "01fe1b35dc97e7d90a6937cd69766c88b9d4ce43"),
}
#: Read records whose dates rise with their numbers (11, 24, 42, 57, 90, 91, 111, 136 and 313 keep their own dates).
XEP_ANCHORS = {3: "2001-06-01", 8: "2001-09-14", 18: "2002-01-28", 21: "2002-03-04", 22: "2002-03-05",
               23: "2002-03-07", 25: "2002-03-14", 36: "2002-07-12", 40: "2002-08-02", 41: "2002-08-15",
               46: "2002-09-12", 52: "2002-12-03", 73: "2003-03-04", 87: "2003-05-22", 93: "2003-05-22", 135: "2004-06-04", 186: "2006-05-11",
               202: "2006-12-05", 203: "2006-12-19"}


def xep_file(number: int) -> str:
    return f"xep-{number:04d}.xml"


def xsf_xeps():
    records = [(f"x{n}", day, text, xep_file(n), commit) for n, (day, text, commit) in XEP_READ.items()]
    records += [(f"x{n}", placed(XEP_ANCHORS, n), f"XEP-{n:04d}: {title}.", XEP_INDEX, XEP_INDEX_COMMIT)
                for n, title in XEP_TITLES.items() if n not in XEP_READ]
    reports = [
        ("r_x186", "x186", "The invisible presence of XEP-0018 is not compatible with XMPP Core and XMPP IM, and many "
                           "server implementations support presence of type 'invisible' but not presence of type "
                           "'visible'.", xep_file(186), XEP_READ[186][2]),
        ("r_x203", "x203", "The timestamp format of the jabber:x:delay namespace does not adhere to the recommended "
                           "date and time profiles for XMPP protocols.", xep_file(203), XEP_READ[203][2]),
        ("r_x202", "x202", "jabber:iq:time communicates the time only in UTC; its natural-language time zone names may "
                           "not be understood, and its display element is effectively useless.", xep_file(202),
         XEP_READ[202][2]),
        ("r_x21", "x21", "The role of an event notification service has been filled by overloading the presence "
                         "packet, which components cannot easily use, and an entity cannot subscribe to the presence "
                         "of one specific resource of another entity.", xep_file(21), XEP_READ[21][2]),
        ("r_x24", "x24", "Embedding information such as the song currently playing inside presence packets diffuses "
                         "it inefficiently, sending potentially huge amounts of data to recipients who aren't "
                         "interested.", xep_file(24), XEP_READ[24][2]),
        ("r_x313", "x313", "Implementation experience has shown that the archiving protocol of XEP-0136 supports rather "
                           "more functionality than is typically needed and is significantly more effort to "
                           "implement.", xep_file(313), XEP_READ[313][2]),
        ("r_x3", "x3", "Complete direct client-to-client file transfers present a major problem for clients that are "
                       "behind a firewall or NAT.", xep_file(3), XEP_READ[3][2]),
        ("r_x8", "x8", "Sending avatar information within presence packets is less than desirable in many respects, "
                       "e.g. in the network traffic generated.", xep_file(8), XEP_READ[8][2]),
        ("r_x57", "x57", "Storing roster item information with jabber:iq:private, as XEP-0048 does, has one big "
                         "problem: it is hard to maintain roster data in two separate places.", xep_file(57),
         XEP_READ[57][2]),
    ]
    return project(
        "xsf-xeps", "xsf/xeps",
        "MIT-style XSF legal notice (xep.ent at baa9a73b: permission to use, copy, modify, merge, publish and "
        "distribute the specification; XEP-0024 'placed in the public domain')", True,
        "xep-NNNN.xml for the records read (first <revision> date); the titles of the others from xep.ent at baa9a73b "
        "(the entity list of XEP titles of 2010), placed by number between the read records' dates",
        records, reports,
        # supersededby headers: 8 -> 84, 11 -> 30, 21/24 -> 60, 23 -> 79, 25 -> 124, 36/40 -> 60 (in text),
        # 41/42/46 -> 65, 52 -> 95 and 96, 87 -> 95, 90 -> 202, 93 -> 144, 111 -> 166; supersedes headers: 186 <- 18,
        # 202 <- 90, 203 <- 91
        updates=[("x8", "x84"), ("x11", "x30"), ("x18", "x186"), ("x21", "x60"), ("x23", "x79"), ("x24", "x60"),
                 ("x25", "x124"), ("x36", "x60"), ("x40", "x60"), ("x41", "x65"), ("x42", "x65"), ("x46", "x65"),
                 ("x52", "x95"), ("x52", "x96"), ("x87", "x95"), ("x90", "x202"), ("x91", "x203"), ("x93", "x144"),
                 ("x111", "x166")],
        unnamed=[("x8", "x84"), ("x11", "x30"), ("x21", "x60"), ("x23", "x79"), ("x24", "x60"), ("x25", "x124"),
                 ("x36", "x60"), ("x40", "x60"), ("x41", "x65"), ("x42", "x65"), ("x46", "x65"), ("x52", "x95"),
                 ("x52", "x96"), ("x87", "x95"), ("x91", "x203"), ("x93", "x144"), ("x111", "x166")],
        # 22: "A more modern protocol extension for this functionality has been defined in XEP-0085" (chat states
        # only, no receipts; 22 stays Active in the copy read); 313: "a server is free to implement XEP-0136 alongside
        # this protocol"; 36 another proposal beside 24 ("the number of proposals written on this topic"); 186 v0.7
        # "removed XEP-0126 from list of protocols that this specification supersedes"
        ambiguous=[("x22", "x85"), ("x24", "x36"), ("x126", "x186"), ("x136", "x313")])


# --- filecoin-project/FIPs ----------------------------------------------------------------------------------------
FIP_INDEX = "README.md"
FIP_INDEX_COMMIT = "003c2e465a079e5d33cd8c20eead6167f1226d0a"  # the repository's index, FIP 0001 to 0095
#: Titles of the FIPs not read, as the index lists them (its FRC rows, application conventions, are left out).
FIP_TITLES = {
    1: "FIP Purpose and Guidelines", 2: "Free Faults on Newly Faulted Sectors of a Missed WindowPoSt",
    3: "Filecoin Plus Principles", 4: "Liquidity Improvement for Storage Miners", 5: "Remove ineffective reward vesting",
    6: "No repay debt requirement for DeclareFaultsRecovered", 7: "h/amt-v3",
    8: "Add miner batched sector pre-commit method", 10: "Off-Chain Window PoSt Verification",
    11: "Remove reward auction from reporting consensus faults", 12: "DataCap Top up for FIL+ Client Addresses",
    13: "Add ProveCommitSectorAggregated method to reduce on-chain congestion",
    14: "Allow V1 proof sectors to be extended up to a maximum of 540 days", 16: "Pack arbitrary data in CC sectors",
    17: "Three-messages lightweight sector updates", 18: "New miner terminology proposal", 19: "Snap Deals",
    20: "Add return value to WithdrawBalance", 21: "Correct quality calculation on expiration",
    22: "Bad deals don't fail PublishStorageDeals", 23: "Break ties between tipsets of equal weights",
    24: "BatchBalancer & BatchDiscount Post -Hyperdrive adjustment", 25: "Handle expired deals in ProveCommit",
    26: "Extend sector fault cutoff period from 2 weeks to 6 weeks",
    27: "Change type of DealProposal Label field from a (Golang) String to a Union",
    28: "Remove DataCap and verified client status from client address",
    29: "Beneficiary address for storage providers", 30: "Introducing the Filecoin Virtual Machine (FVM)",
    31: "Atomic switch to non-programmable FVM", 32: "Gas model adjustment for non-programmable FVM",
    33: "Explicit premium for FIL+ verified deals", 34: "Fix pre-commit deposit independent of sector content",
    36: "Introducing a Sector Duration Multiple for Longer Term Sector Commitment",
    39: "Filecoin Message Replay Protection", 41: "Forward Compatibility for PreCommit and ReplicaUpdate",
    45: "De-couple verified registry from markets", 48: "f4 Address Class", 49: "Actor Events",
    50: "API Between User-Programmed Actors and Built-In Actors", 52: "Increase max sector commitment to 3.5 years",
    54: "Filecoin EVM Runtime (FEVM)", 55: "Supporting Ethereum Accounts, Addresses, and Transactions",
    57: "Update Gas Charging Schedule and System Limits for FEVM", 59: "Synthetic PoRep",
    60: "Set market deal maintenance interval to 30 days", 61: "WindowPoSt Grindability Fix",
    62: "Fallback Method Handler for the Multisig Actor", 63: "Switching to new Drand mainnet network",
    65: "Ignore built-in market locked balance in circulating supply calculation",
    70: "Allow SPs to move partitions between deadlines", 71: "Deterministic State Access (IPLD Reachability)",
    72: "Improved event syscall API", 73: "Remove beneficiary from the self_destruct syscall",
    74: "Remove cron-based automatic deal settlement", 75: "Improvements to the FVM randomness syscalls",
    76: "Direct data onboarding", 77: "Add Cost Opportunity For New Miner Creation",
    78: "Remove Restrictions on the Minting of Datacap", 79: "Add BLS Aggregate Signatures to FVM",
    80: "Phasing Out Fil+ and Restoring Deal Quality Multiplier to 1x",
    81: "Introduce lower bound for sector initial pledge", 82: "Add support for aggregated replica update proofs",
    83: "Add built-in Actor events in the Verified Registry, Miner and Market Actors",
    84: "Remove Storage Miner Actor Method `ProveCommitSectors`",
    85: "Convert f090 Mining Reserve actor to a keyless account actor", 86: "Fast Finality in Filecoin (F3)",
    91: "Add support for Homestead and EIP-155 Ethereum Transactions (\"legacy\" Ethereum Transactions)",
    94: "Add Support for EIP-5656 (MCOPY Opcode) in the FEVM",
    95: "Add FEVM precompile to fetch beacon digest from chain history",
}
#: Records read: number -> (the record's "created:" date, or None where it is placed by number; its decision or
#: abstract, trimmed; commit). FIP-0015's "created: 2020-05-20" precedes the FIP-0009 it reverts: placed by number.
FIP_READ = {
    9: ("2020-12-15", "FIP-0009: Exempt Window PoSts from BaseFee burn: SubmitWindowedPoSt messages that succeed and "
        "are sent directly by a miner are exempted from burning the base fee, a short-term measure while the base fee "
        "makes Window PoSts expensive.", "0e201fd93095df11ae8b4559953010b9e5a1c2c7"),
    15: (None, "FIP-0015: Revert FIP-0009 (Exempt Window PoSts from BaseFee burn): burned gas from SubmitWindowedPoSt "
         "messages is no longer refunded; Window PoSt messages pay the base fee like every other message.",
         "029d41504af00e7227ad9c5a493408cabdb2b92b"),
    35: ("2022-02-17", "FIP-0035: Support actors as built-in storage market clients: new market actor methods let a "
         "client offer storage deals on chain (OfferStorageDeals) and a provider accept them (AcceptStorageDeals), so "
         "that actors without a signing key can be deal clients.", "476812fa969fb0e545d28cb623020730186913ef"),
    37: ("2022-03-09", "FIP-0037: Gas model adjustment for user programmability: new gas fees for actor installation, "
         "actor loading and memory expansion, a hashing fee that depends on the digest function, and prices for "
         "syscalls that were unpriced.", "0b74ac73dc4c2c17ad07094b6a7ce59ddaeb5e8e"),
    44: ("2022-08-02", "FIP-0044: Standard Authentication Method for Actors: an authenticate_message method that any "
         "actor can implement; the built-in Account actor implements it by signature validation, and the Storage "
         "Market actor calls it instead of validating signatures directly.",
         "66d9f23c5a687747bb70ec10bf1085d6945723ed"),
    47: ("2022-08-31", "FIP-0047: Proof Expiration & PoRep Security Policy: each sector gets a ProofExpiration, "
         "decoupled from its commitment expiration and refreshed with RefreshProofExpiration; in case of a PoRep "
         "flaw, old sectors cannot refresh and must be replaced by newly sealed sectors before their proofs expire.",
         "1b5f49730560af01fecaec03734d5495c156e497"),
    56: ("2022-12-14", "FIP-0056: Sector Duration Multiplier (SDM): a longer sector has a higher Quality Adjusted "
         "Power, a duration multiplier of up to 4.5x on top of the Filecoin Plus multiplier, with a higher initial "
         "pledge; the minimum sector commitment rises from 6 months to 1 year and the maximum from 1.5 to 5 years.",
         "3b4efa38f01a62779648503e77fc3b1b36f6f40a"),
    67: ("2023-06-16", "FIP-0067: PoRep Security Policy & Replacement Sealing Enforcement: in case of a PoRep flaw, "
         "the number of old sectors a provider may keep active falls to zero over 1.5 years, enforced by escalating "
         "penalties, so providers seal replacement sectors or terminate old ones; no proof expiration schedule.",
         "1a411d91991d8a560c8887e7b31d2f919cab4cb4"),
    90: ("2023-12-18", "FIP-0090: Non-Interactive PoRep: removes the interactive step of PoRep for Committed "
         "Capacity sectors: storage providers generate the PoRep challenges locally instead of using on-chain "
         "randomness.", "04c54c9648b10646fb76a51210c90e3b62e2921f"),
    92: ("2024-06-04", "FIP-0092: Non-Interactive PoRep: a new PoRep protocol that removes PreCommit when "
         "onboarding Committed Capacity sectors: storage providers generate the challenges locally, the chain "
         "verifies within 180 days, and providers choose the ProvingDeadline of the new sectors.",
         "10d1a766b391725ed6f631d6a77afc076efbd938"),
}
#: Read records whose dates rise with their numbers.
FIP_ANCHORS = {9: "2020-12-15", 35: "2022-02-17", 37: "2022-03-09", 44: "2022-08-02", 47: "2022-08-31",
               56: "2022-12-14", 67: "2023-06-16", 90: "2023-12-18", 92: "2024-06-04"}


def fip_file(number: int) -> str:
    return f"FIPS/fip-{number:04d}.md"


def filecoin_fips():
    records = [(f"f{n}", day or placed(FIP_ANCHORS, n), text, fip_file(n), commit)
               for n, (day, text, commit) in FIP_READ.items()]
    records += [(f"f{n}", placed(FIP_ANCHORS, n), f"FIP-{n:04d}: {title}.", FIP_INDEX, FIP_INDEX_COMMIT)
                for n, title in FIP_TITLES.items()]
    reports = [
        ("r_f44", "f44", "Today the only kind of actors that can authenticate a piece of data are account actors, "
                         "through a signature validation, so user-defined actors cannot serve as storage deal "
                         "clients without engineering around it.", fip_file(44), FIP_READ[44][2]),
        ("r_f9", "f9", "The rising base fee has raised the gas cost of continuously proving existing storage with "
                       "Window PoSt messages.", fip_file(9), FIP_READ[9][2]),
        ("r_f15", "f15", "The 'free' Window PoSts distort the gas market and reduce the incentive for miners to batch "
                         "as many partitions as possible into one SubmitWindowedPoSt message, which wastes chain "
                         "bandwidth.", fip_file(15), FIP_READ[15][2]),
        ("r_f56", "f56", "Storage Providers do not receive any additional compensation or incentives for committing "
                         "longer term sectors: the protocol places equal value on 180 to 540 day sectors.",
         fip_file(56), FIP_READ[56][2]),
        ("r_f47", "f47", "The v1.1 PoRep algorithm patched a bug in the v1 PoRep implementation that weakened the "
                         "security assurances of sectors.", fip_file(47), FIP_READ[47][2]),
        ("r_f67", "f67", "Adding a proof expiration schedule to the existing sector expiration mechanism broke "
                         "numerous core constraints of that mechanism and led to an explosion of complexity.",
         fip_file(67), FIP_READ[67][2]),
    ]
    return project(
        "filecoin-fips", "filecoin-project/FIPs",
        "CC0-1.0, as each FIP read states ('Copyright and related rights waived via CC0')", True,
        "FIPS/fip-NNNN.md for the records read (created: dates); the titles of the others from README.md at 003c2e46 "
        "(the repository's index, whose status column marks FIP-0047 Superseded and FIP-0090 'Superseded by "
        "FIP0092'), placed by number between the read records' dates",
        records, reports,
        # 15 "Revert FIP-0009"; 44 "replaces: FIP-0035", "a simpler replacement for FIP-0035"; 67 "builds on and
        # supersedes FIP-0047"; 92 "builds on and supersedes FIP-0090", and the index's "Superseded by FIP0092"
        updates=[("f9", "f15"), ("f35", "f44"), ("f47", "f67"), ("f90", "f92")],
        unnamed=[("f35", "f44"), ("f47", "f67"), ("f90", "f92")],
        # 37 "expands on FIP-0032" (withdrawn); 56 "If this SDM proposal were to be accepted, FIP-0052 would be
        # withdrawn" (56 rejected); 56 the revival of the rejected 36 by its authors; a draft of 74 read (not at a
        # commit the index named): 60 "only bought some time", existing deals keep the automatic settlement; drafts
        # of 78 carry "replaces: FIP-0003", never adopted
        ambiguous=[("f3", "f78"), ("f32", "f37"), ("f36", "f56"), ("f52", "f56"), ("f60", "f74")])


# --- zcash/zips ---------------------------------------------------------------------------------------------------
ZIP_INDEX = "README.rst"
ZIP_INDEX_COMMIT = "00af4d45ca018500dca47e34ccb2f5b2bd6c3622"  # the index: released, draft, withdrawn and obsolete ZIPs
#: Titles of the ZIPs not read, as the index lists them (its guide templates are left out).
ZIP_TITLES = {
    0: "ZIP Process", 1: "Network Upgrade Policy and Scheduling", 2: "Design Considerations for Network Upgrades",
    32: "Shielded Hierarchical Deterministic Wallets", 68: "Relative lock-time using consensus-enforced sequence numbers",
    76: "Transaction Signature Validation before Overwinter", 112: "CHECKSEQUENCEVERIFY",
    113: "Median Time Past as endpoint for lock-time calculations", 143: "Transaction Signature Validation for Overwinter",
    155: "addrv2 message", 173: "Bech32 Format", 200: "Network Upgrade Mechanism",
    201: "Network Peer Management for Overwinter", 202: "Version 3 Transaction Format for Overwinter",
    203: "Transaction Expiry", 204: "Zcash P2P Network Protocol", 205: "Deployment of the Sapling Network Upgrade",
    206: "Deployment of the Blossom Network Upgrade", 207: "Funding Streams", 208: "Shorter Block Target Spacing",
    209: "Prohibit Negative Shielded Chain Value Pool Balances", 210: "Sapling Anchor Deduplication within Transactions",
    211: "Disabling Addition of New Value to the Sprout Chain Value Pool",
    212: "Allow Recipient to Derive Ephemeral Secret from Note Plaintext", 213: "Shielded Coinbase",
    214: "Consensus rules for a Zcash Development Fund", 215: "Explicitly Defining and Modifying Ed25519 Validation Rules",
    216: "Require Canonical Jubjub Point Encodings", 217: "Aggregate Signatures",
    219: "Disabling Addition of New Value to the Sapling Chain Value Pool", 220: "Zcash Shielded Assets",
    221: "FlyClient - Consensus-Layer Changes", 222: "Transparent Zcash Extensions", 224: "Orchard Shielded Protocol",
    225: "Version 5 Transaction Format", 226: "Transfer and Burn of Zcash Shielded Assets",
    227: "Issuance of Zcash Shielded Assets", 228: "Asset Swaps for Zcash Shielded Assets",
    230: "Version 6 Transaction Format", 231: "Decouple Memos from Transaction Outputs",
    233: "Establish the Zcash Sustainability Fund on the Protocol Level", 234: "Smooth Out The Block Subsidy Issuance",
    236: "Blocks should balance exactly", 239: "Relay of Version 5 Transactions",
    243: "Transaction Signature Validation for Sapling", 244: "Transaction Identifier Non-Malleability",
    245: "Transaction Identifier Digests & Signature Validation for Transparent Zcash Extensions",
    250: "Deployment of the Heartwood Network Upgrade", 251: "Deployment of the Canopy Network Upgrade",
    252: "Deployment of the NU5 Network Upgrade", 253: "Deployment of the NU6 Network Upgrade",
    300: "Cross-chain Atomic Transactions", 301: "Zcash Stratum Protocol", 302: "Standardized Memo Field Format",
    303: "Sprout Payment Disclosure", 304: "Sapling Address Signatures",
    305: "Best Practices for Hardware Wallets supporting Sapling", 306: "Security Considerations for Anchor Selection",
    307: "Light Client Protocol for Payment Detection", 308: "Sprout to Sapling Migration",
    309: "Blind Off-chain Lightweight Transactions (BOLT)", 310: "Security Properties of Sapling Viewing Keys",
    311: "Zcash Payment Disclosures", 312: "FROST for Spend Authorization Multisignatures",
    313: "Reduce Conventional Transaction Fee to 1000 zatoshis",
    314: "Privacy upgrades to the Zcash light client protocol", 315: "Best Practices for Wallet Implementations",
    316: "Unified Addresses and Unified Viewing Keys", 318: "Associated Payload Encryption",
    319: "Options for Shielded Pool Retirement",
    320: "Defining an Address Type to which funds can only be sent from Transparent Addresses",
    321: "Payment Request URIs", 322: "Generic Signed Message Format", 323: "Specification of getblocktemplate for Zcash",
    324: "URI-Encapsulated Payments", 332: "Wallet Recovery from zcashd HD Seeds", 339: "Wallet Recovery Words",
    400: "Wallet.dat format", 401: "Addressing Mempool Denial-of-Service", 402: "New Wallet Database Format",
    403: "Verification Behaviour of zcashd", 416: "Support for Unified Addresses in zcashd",
    1001: "Keep the Block Distribution as Initially Defined — 90% to Miners", 1002: "Opt-in Donation Feature",
    1003: "20% Split Evenly Between the ECC and the Zcash Foundation, and a Voting System Mandate",
    1004: "Miner-Directed Dev Fund", 1005: "Zcash Community Funding System",
    1006: "Development Fund of 10% to a 2-of-3 Multisig with Community-Involved Third Entity",
    1007: "Enforce Development Fund Commitments with a Legal Charter", 1008: "Fund ECC for Two More Years",
    1009: "Five-Entity Strategic Council", 1010: "Compromise Dev Fund Proposal With Diverse Funding Streams",
    1011: "Decentralize the Dev Fee", 1013: "Keep It Simple, Zcashers: 10% to ECC, 10% to ZF",
    2001: "Lockbox Funding Streams",
}
#: Records read: number -> (the record's "Created:" date, its decision or abstract, trimmed, or None where the record
#: was read for its date only, commit).
ZIP_READ = {
    317: ("2022-08-15", "ZIP 317: Proportional Transfer Fee Mechanism: the conventional transaction fee becomes "
          "proportional to the number of logical actions, 5,000 zatoshis per action with a grace of two actions, so "
          "that larger transactions pay more.", "24941a85db27ea386ff0980ec8cd22d199ce55e3"),
    1012: ("2019-11-10", None, "f044cc57d674ac433f69638ae153560b8eeddaa2"),
    1014: ("2019-11-10", "ZIP 1014: Establishing a Dev Fund for ECC, ZF, and Major Grants: for four years after the "
           "first halving, 20% of the block subsidy goes to a Dev Fund: 7% to the Electric Coin Company, 5% to the "
           "Zcash Foundation and 8% to Major Grants.", "259df9c4ab0aa675ecfffbade53e696c6bc6535c"),
    1015: ("2024-08-26", "ZIP 1015: Block Reward Allocation for Non-Direct Development Funding: once the Dev Fund "
           "ends, part of the block reward is set aside in a lockbox until a disbursement mechanism is decided, "
           "instead of going directly to organizations.", "42b086e3d6547e6335f3b5026a7481d2ad23cf03"),
}
ZIP_READ_TITLES = {1012: "Dev Fund to ECC + ZF + Major Grants"}
#: Two anchor series: ZIP numbers below 1000 around ZIP 317, the 2019 dev-fund proposals around ZIP 1012 and 1014.
#: ZIP 2001, the lockbox of ZIP 1015, is placed a week after it.
ZIP_ANCHORS = {317: "2022-08-15"}
ZIP_DEV_FUND_ANCHORS = {1012: "2019-11-10", 1014: "2019-11-10"}


def zip_file(number: int) -> str:
    return f"zips/zip-{number:04d}.rst"


def zip_placed(number: int) -> str:
    if number == 2001:
        return (date.fromisoformat(ZIP_READ[1015][0]) + timedelta(days=7)).isoformat()
    return placed(ZIP_DEV_FUND_ANCHORS if number > 1000 else ZIP_ANCHORS, number)


def zcash_zips():
    records = [(f"z{n}", day, text or f"ZIP {n}: {ZIP_READ_TITLES[n]}.", zip_file(n), commit)
               for n, (day, text, commit) in ZIP_READ.items()]
    records += [(f"z{n}", zip_placed(n), f"ZIP {n}: {title}.", ZIP_INDEX, ZIP_INDEX_COMMIT)
                for n, title in ZIP_TITLES.items()]
    reports = [
        ("r_z317", "z317", "The conventional fee of 1,000 zatoshis, whatever a transaction's size, lets transactions "
                           "with as many as 1,100 outputs pay the same fee as small ones.", zip_file(317),
         ZIP_READ[317][2]),
        ("r_z1015", "z1015", "Funding specific organizations directly from the block reward, as the Dev Fund did, "
                             "carries regulatory risk.", zip_file(1015), ZIP_READ[1015][2]),
    ]
    return project(
        "zcash-zips", "zcash/zips",
        "MIT (README.rst at 00af4d45: the contents are released under the MIT license unless a file states "
        "otherwise)", True,
        "zips/zip-NNNN.rst for the records read (Created: dates); the titles of the others from README.rst at "
        "00af4d45 (the repository's index, whose status column marks ZIP 313 and the dev-fund proposals 1001 to 1013 "
        "Obsolete), placed by number around the read records' dates in two series",
        records, reports,
        # 317 "Obsoletes: ZIP 313"
        updates=[("z313", "z317")], unnamed=[("z313", "z317")],
        # 1012 an obsolete alternative of the dev-fund poll and 1014 the adopted one, whose Original-Authors include
        # 1012's author; 1015 the allocation after 1014's four years, which ended rather than being replaced
        ambiguous=[("z1012", "z1014"), ("z1014", "z1015")])


# --- near/NEPs ----------------------------------------------------------------------------------------------------
NEP_INDEX = "README.md"
NEP_INDEX_COMMIT = "01294227fef6f205a966f13d75ae3c6224e366de"  # the repository's index of NEPs
NEP_TITLES = {
    1: "NEP Purpose and Guidelines", 145: "Storage Management", 148: "Fungible Token Metadata",
    171: "Non Fungible Token Standard", 177: "Non Fungible Token Metadata", 178: "Non Fungible Token Approval Management",
    181: "Non Fungible Token Enumeration", 199: "Non Fungible Token Royalties and Payouts", 245: "Multi Token Standard",
    297: "Events Standard", 330: "Source Metadata",
}
NEP_READ = {
    21: ("2019-10-29", "NEP-21: Fungible Token Standard: a standard interface for fungible tokens allowing for "
         "ownership, escrow and transfer: set_allowance lets an escrow account move up to an allowance with "
         "transfer_from, besides a simple transfer.", "2a37667c3256d7ebb7e346346ac8bf4476d22679"),
    141: ("2022-03-03", "NEP-141: Fungible Token Standard: a standard interface for fungible tokens that allows a "
          "normal transfer (ft_transfer) as well as a transfer and method call in a single transaction "
          "(ft_transfer_call), with storage staking left to the storage management standard.",
          "0017374e1c4e24651d638b491c524943b84cab89"),
}
NEP_ANCHORS = {21: "2019-10-29", 141: "2022-03-03"}


def nep_file(number: int) -> str:
    return f"neps/nep-{number:04d}.md"


def near_neps():
    records = [(f"n{n}", day, text, nep_file(n), commit) for n, (day, text, commit) in NEP_READ.items()]
    records += [(f"n{n}", placed(NEP_ANCHORS, n), f"NEP-{n}: {title}.", NEP_INDEX, NEP_INDEX_COMMIT)
                for n, title in NEP_TITLES.items()]
    reports = [
        ("r_n141", "n141", "Using an escrow with allowances as the only avenue to pay for a service with a fungible "
                           "token frequently requires more than one transaction, the allowance raised before each "
                           "request.", nep_file(141), NEP_READ[141][2]),
    ]
    return project(
        "near-neps", "near/NEPs", "CC0-1.0, as each NEP read states ('Copyright and related rights waived via CC0')",
        True,
        "neps/nep-NNNN.md for the records read (Created: dates); the titles of the others from README.md at 01294227 "
        "(the repository's index), placed by number after the read records' dates",
        records, reports,
        # 21 "SupersededBy: 141"; 141 "Replaces: 21" (the index lists 21 as "Fungible Token Standard (Deprecated)")
        updates=[("n21", "n141")], unnamed=[("n21", "n141")])


# --- tendermint/tendermint ----------------------------------------------------------------------------------------
TM_INDEX = "docs/architecture/README.md"
TM_INDEX_COMMIT = "008b137b7aeceead24853c111eeb0609a6a789c1"  # the ADR index by status (Implemented ... Proposed)
TM_TITLES = {
    1: "Logging", 2: "Event-Subscription", 3: "ABCI-APP-RPC", 4: "Historical-Validators", 5: "Consensus-Params",
    6: "Trust-Metric", 7: "Trust-Metric-Usage", 8: "Priv-Validator", 9: "ABCI-Design", 10: "Crypto-Changes",
    11: "Monitoring", 12: "Peer-Transport", 13: "Symmetric-Crypto", 14: "Secp-Malleability", 15: "Crypto-Encoding",
    16: "Protocol-Versions", 17: "Chain-Versions", 18: "ABCI-Validators", 19: "Multisigs", 20: "Block-Size",
    21: "ABCI-Events", 22: "ABCI-Errors", 23: "ABCI-Propose-tx", 24: "Sign-Bytes", 25: "Commit",
    26: "General-Merkle-Proof", 29: "Check-Tx-Consensus", 30: "Consensus-Refactor", 33: "Pubsub",
    34: "Priv-Validator-File-Structure", 35: "Documentation", 36: "Empty Blocks via ABCI", 37: "Deliver-Block",
    38: "Non-Zero-Start-Height", 39: "Peer-Behaviour", 40: "Blockchain Reactor Refactor",
    41: "Proposer-Selection-via-ABCI", 42: "State Sync Design", 43: "Blockchain-RiRi-Org",
    44: "Lite-Client-With-Weak-Subjectivity", 45: "ABCI-Evidence", 47: "Handling-Evidence-From-Light-Client",
    50: "Improved Trusted Peering", 51: "Double-Signing-Risk-Reduction", 52: "Tendermint-Mode",
    53: "State-Sync-Prototype", 55: "Protobuf-Design", 56: "Light-Client-Amnesia-Attacks", 57: "RPC",
    58: "Event-Hashing", 59: "Evidence-Composition-and-Lifecycle", 60: "Go-API-Stability", 61: "P2P-Refactor-Scope",
    62: "P2P-Architecture", 63: "Privval-gRPC", 64: "Batch Verification", 65: "Custom Event Indexing",
    66: "E2E-Testing", 67: "Mempool Refactor", 68: "Reverse-Sync", 69: "Node Initialization",
    71: "Proposer-Based Timestamps", 72: "Restore Requests for Comments", 73: "Adopt LibP2P",
    74: "Migrate Timeout Parameters to Consensus Parameters", 75: "RPC Event Subscription Interface",
    76: "Combine Spec and Tendermint Repositories", 77: "Configurable Block Retention", 79: "Ed25519 Verification",
    81: "Protocol Buffers Management", 82: "Data Companion API",
}
#: Records read: number -> (the first Changelog date, the decision in the authors' words, trimmed, file, commit).
TM_READ = {
    46: ("2020-02-13", "ADR-046: Lite Client Implementation: a Client verifies headers from a primary provider, "
         "cross-checks them with witnesses and keeps trusted headers and validator sets in a trusted store, with a "
         "non-recursive bisection for non-adjacent headers.", "adr-046-light-client-implementation.md",
         "5d64e4845d586a58fa90c3454f67d1797d1e55f7"),
    54: ("2020-02-27", "ADR-054: Crypto encoding (part 2): all encoding of keys shifts to protobuf, a PubKey oneof "
         "holding ed25519 bytes; Tendermint defines only the keys it uses, the Cosmos-SDK its own, and amino marshal "
         "functions remain where backwards compatibility is needed.", "adr-054-crypto-encoding-2.md",
         "a0dc5ef8b813927be14a509a26b0009aa561c6c3"),
    78: ("2020-07-26", "ADR-078: Non-Zero Genesis: chains can start from an arbitrary initial height, given by a new "
         "initial_height field in the genesis file and passed as InitialHeight in RequestInitChain and the state.",
         "adr-078-nonzero-genesis.md", "44b57aa6a7e484a138d19e1c7b1bc3cfbe006b15"),
    80: ("2020-11-25", "ADR-080: ReverseSync - fetching historical data: after state sync, a node fetches and "
         "verifies headers, commits and validator sets backwards from its base over P2P, down to the evidence age "
         "height and time, before fast sync or consensus.", "adr-080-reverse-sync.md",
         "4b307f96bbfddbc08ff305dee30369c5b899a4c2"),
}
#: The read records whose dates rise with their numbers (ADR-072 and later are migrated RFCs: 78 and 80 keep their own).
TM_ANCHORS = {46: "2020-02-13", 54: "2020-02-27"}


def tendermint_adrs():
    records = [(f"t{n}", day, text, f"docs/architecture/{name}", commit)
               for n, (day, text, name, commit) in TM_READ.items()]
    records += [(f"t{n}", placed(TM_ANCHORS, n), f"ADR-{n:03d}: {title}.", TM_INDEX, TM_INDEX_COMMIT)
                for n, title in TM_TITLES.items()]
    reports = [
        ("r_t80", "t80", "Nodes who state sync past the block retention height have no means of backfilling the "
                         "blocks, and without the block and validator history to verify evidence they may panic.",
         "docs/architecture/" + TM_READ[80][2], TM_READ[80][3]),
        ("r_t78", "t78", "An upgraded chain starts at height 1 with none of the old chain's block history, which "
                         "causes problems for integrators, e.g. coin exchanges and wallets, that assume a "
                         "monotonically increasing height.", "docs/architecture/" + TM_READ[78][2], TM_READ[78][3]),
        ("r_t54", "t54", "Amino has been a pain point of many users in the ecosystem.",
         "docs/architecture/" + TM_READ[54][2], TM_READ[54][3]),
    ]
    return project(
        "tendermint-adrs", "tendermint/tendermint", "Apache-2.0 (LICENSE at e8ab6b74)", True,
        "docs/architecture/adr-NNN-*.md for the records read (first Changelog dates); the titles of the others from "
        "docs/architecture/README.md at 008b137b (the ADR index by status), placed by number around the read records' "
        "dates",
        records, reports, updates=[],
        # 54 "Crypto encoding (part 2)" changes the key encoding of 15 without saying it replaces it; 78 and 38 both
        # on a non-zero start height; 80 (a migrated RFC) and 68 both "Reverse Sync", neither naming the other
        ambiguous=[("t15", "t54"), ("t38", "t78"), ("t68", "t80")])


ABOUT = (
    "Session 38's second held-out set of decision records, session 39's in the flag's name (sources, licences and "
    "the commit read per record; README.md, section 'Held out, session 39'): XMPP Extension Protocols, Filecoin "
    "FIPs, Zcash ZIPs, NEAR NEPs and Tendermint ADRs, one memory per record: its number, title and, where read, its "
    "decision or abstract trimmed to a sentence or two. `updates` are the pairs the authors marked (older first); "
    "`updates_unnamed` repeats those whose newer memory does not cite the older by number; `ambiguous` pairs count "
    "neither way; `reports` report on a subject and never supersede anything. Every other link is wrong. Split "
    "`held-out-s39` for every project: committed before any run, never tuned on, run once by the lead "
    "(bench/public_links.py --held-out-s39). Built by bench/build_adr_held_out_s39.py.")


def build() -> dict:
    return {"_about": ABOUT, "projects": [xsf_xeps(), filecoin_fips(), zcash_zips(), near_neps(), tendermint_adrs()]}


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
