"""Build held_out_s39.json: two more sources' own credential-detection test material, held out (session 38's second).

    python bench/data/secrets_public/held_out_s39.py

Typed from the files (repository, commit and path per block below) and committed before any detector here ran on
them. Neither source was read here before, and neither is a source of held_out_s38.json:

* github/codeql (MIT): the test programs of its hard-coded credentials queries (CWE-798) in JavaScript, Java, C#,
  Python, Ruby and Go. A line its test marks as an expected alert (``// $ Alert``, ``# $ Alert``, ``// NOT OK``,
  ``// $ HardcodedCredentialsApiCall``, ``// BAD``, ``// $ MISSING: Alert`` for one the query should catch but does not yet) or that
  a ``// BAD`` comment introduces holds a secret; a line of the same programs with none (environment lookups, config
  reads, dummy values the query deliberately ignores, ``// OK`` lines) is must-not-fire. The trailing test
  annotation is cut from the line (``_ANNOTATION``): it is test markup, not part of the program.
* pre-commit/pre-commit-hooks (MIT; some files stored under its name come from forks' history: the Azure, dotenv,
  GCP and secret-token hooks): the fixtures its credential hooks must block (``testing/resources/*``: AWS
  credentials files, an Azure credentials sampler with one example per scanner rule, a dotenv file of dummy secrets)
  and those they must pass (``azure_no_credentials.txt``, the incomplete patterns of ``detect_azure_credentials_test.py``,
  ``detect_secret_token_test.py``'s and ``detect_private_key_test.py``'s negative inputs).

``secret`` is set per case by hand: the assigned or passed value, a URL's or connection string's password, the first
body line of a private key. A case whose value also appears elsewhere in its text cannot be scored and is left out; so
is a text or a value (12+ characters) another part already holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
CQ, PC = "github/codeql", "pre-commit/pre-commit-hooks"
LICENSES = {CQ: "MIT", PC: "MIT"}
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "kingfisher_5.json", "held_out_secretlint_trivy.json",
                 "held_out_s34.json", "held_out_s35.json", "held_out_s36.json", "held_out_s37.json",
                 "held_out_s38.json")

#: CodeQL's inline test expectations at the end of a line (cut: markup for its test runner, not program text)
_ANNOTATION = re.compile(r"\s*(?://|#) (?:\$ .*|NOT OK.*|OK\b.*|BAD\b.*|hard-coded .*|flow .*|sensitive .*)$")


def S(text: str, secret: str, g: str = "") -> tuple[str, str, str]:
    """A secret case: the text and the value in it that must not survive; ``g``: a sub-group."""
    return text, secret, g


def B(text: str, g: str = "") -> tuple[str, None, str]:
    """A must-not-fire case."""
    return text, None, g


JS = "javascript/ql/test/query-tests/Security/CWE-798/HardcodedCredentials.js"
JS_COMMIT = "05e4677fd167c1631e1832ffccf243b88df243f1"
JAVA = "java/ql/test/query-tests/security/CWE-798/semmle/tests/"

# (repository, commit, path, group, [cases])
BLOCKS = [
    (CQ, JS_COMMIT, JS, "codeql js", [
        S("        password: 'hgfedcba',  // $ Alert", "hgfedcba", "pg client"),
        B("        host: 'database.server.com',", "pg client"),
        B("        database: 'mydb',", "pg client"),
        B("        port: 3211,", "pg client"),
        B("    require(\"http\").request({auth: getUnknownCredentials()});", "http auth"),
        S("    basicAuth({users: { 'admin': 'hgfedcba' }});  // $ Alert", "hgfedcba", "basic auth"),
        S("    users['unknown-admin-name'] = 'hgfedcba'; // $ Alert", "hgfedcba", "basic auth"),
        S("    basicAuth('username', 'hgfedcba'); // $ Alert", "hgfedcba", "basic auth"),
        B("    basicAuth(function(){});", "basic auth"),
        S("    AWS.config.update({ accessKeyId: 'username', secretAccessKey: 'hgfedcba'}); // $ Alert", "hgfedcba",
          "aws sdk"),
        S("    o.secretAccessKey = 'hgfedcba'; // $ Alert", "hgfedcba", "aws sdk"),
        S("    request.get(url).auth('username', 'hgfedcba'); // $ Alert", "hgfedcba", "request auth"),
        S("            'pass': 'hgfedcba' // $ Alert", "hgfedcba", "request auth"),
        S("    MsRest.loginWithUsernamePassword('username', 'hgfedcba', function(){}); // $ Alert", "hgfedcba", "azure"),
        B("    MsRest.loginWithUsernamePassword(process.env.AZURE_USER, process.env.AZURE_PASS, function(){});", "azure"),
        S("    MsRest.loginWithServicePrincipalSecret('username', 'hgfedcba', function(){}); // $ Alert", "hgfedcba",
          "azure"),
        B("    digitalocean.client(process.env.DIGITAL_OCEAN_TOKEN);", "digitalocean"),
        S("        key: 'hgfedcba', // $ Alert", "hgfedcba", "pkgcloud"),
        S("        apiKey: 'hgfedcba', // $ Alert", "hgfedcba", "pkgcloud"),
        S("        storageAccessKey: 'hgfedcba', // $ Alert", "hgfedcba", "pkgcloud"),
        S("        token: 'hgfedcba' // $ Alert", "hgfedcba", "pkgcloud"),
        B("        INNOCENT_DATA: '42'", "pkgcloud"),
        B("        username: process.env.USERNAME,", "pkgcloud"),
        B("        password: process.env.PASSWORD", "pkgcloud"),
        S("    require('crypto').createHmac('sha256', 'hgfedcba'); // $ Alert", "hgfedcba", "crypto key"),
        S("    require(\"crypto-js/aes\").encrypt('my message', 'hgfedcba'); // $ Alert", "hgfedcba", "crypto key"),
        S("    require(\"cookie-session\")({ secret: \"hgfedcba\" }); // $ Alert", "hgfedcba", "session secret"),
        B("            'pass': process.env.PASSWORD", "request auth"),
        B("    let pass = getPassword() || '';", "request auth"),
        B("            'pass': pass,", "request auth"),
        S("\trequire(\"cookie-session\")({ secret: \"oiuneawrgiyubaegr\" }); // $ Alert", "oiuneawrgiyubaegr",
          "session secret"),
        S("\trequire('crypto').createHmac('sha256', 'oiuneawrgiyubaegr'); // $ Alert", "oiuneawrgiyubaegr",
          "crypto key"),
        B("\tbasicAuth({users: { [adminName]: 'change_me' }});", "basic auth"),
        S("    const PASS = 'sdsdag'; // $ Alert", "sdsdag", "fetch basic auth"),
        B("    const AUTH = base64.encode(`${USER}:${PASS}`);", "fetch basic auth"),
        B("            \"Authorization\": `Basic ${AUTH}`, // $ Sink", "fetch basic auth"),
        B("    headers.append(\"Authorization\", `Basic ${AUTH}`); // $ Sink", "fetch basic auth"),
        B("    const password = config.get('some_actually_secrect_password');", "fetch basic auth"),
        B("        Authorization: 'Basic ' + Buffer.from(username + ':' + password).toString('base64'), // $ Sink",
          "fetch basic auth"),
        S("    var privateKey = \"myHardCodedPrivateKey\"; // $ Alert", "myHardCodedPrivateKey", "jwt key"),
        B("    var token = jwt.sign({ foo: 'bar' }, privateKey, { algorithm: 'RS256'}); // $ Sink", "jwt key"),
        B("            \"Authorization\": `Basic foo`, // OK - dummy password", "fetch basic auth"),
        B("            \"Authorization\": `${foo ? 'Bearer' : 'OAuth'} ${accessToken}`, // OK - just a protocol selector",
          "fetch basic auth"),
        B("    require(\"http\").request({auth: \"user:{{ INSERT_HERE }}\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:token {{ INSERT_HERE }}\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:( INSERT_HERE )\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:{{ env.access_token }}\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:abcdefgh\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:12345678\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:foo\"});", "http auth"),
        B("    require(\"http\").request({auth: \"user:mypassword\"})", "http auth"),
        B("    require(\"http\").request({auth: \"user:mytoken\"})", "http auth"),
        B("    require(\"http\").request({auth: \"user:fake token\"})", "http auth"),
        B("    require(\"http\").request({auth: \"user:dcba\"})", "http auth"),
        B("    require(\"http\").request({auth: \"user:custom string\"})", "http auth"),
        S("    headers.append(\"Authorization\", `Basic sdsdag:sdsdag`); // $ Alert", "sdsdag:sdsdag", "header basic auth"),
        B("    headers.append(\"Authorization\", `Basic sdsdag:xxxxxxxxxxxxxx`);", "header basic auth"),
        S("    headers.append(\"Authorization\", `Basic sdsdag:aaaiuogrweuibgbbbbb`); // $ Alert", "aaaiuogrweuibgbbbbb",
          "header basic auth"),
        B("    headers.append(\"Authorization\", `Basic sdsdag:000000000000001`);", "header basic auth"),
        B("    require('crypto').createHmac('sha256', 'mytoken');", "crypto key"),
        B("    require('crypto').createHmac('sha256', 'SampleToken');", "crypto key"),
        B("    require('crypto').createHmac('sha256', 'MyPassword');", "crypto key"),
        S("    require('crypto').createHmac('sha256', 'iubfewiaaweiybgaeuybgera'); // $ Alert",
          "iubfewiaaweiybgaeuybgera", "crypto key"),
        B("    jwt_simple.decode(UserToken, privateKey); // $ Sink", "jwt key"),
        B("        issuer: 'urn:example:issuer',", "jwt key"),
        B("        audience: 'urn:example:audience',", "jwt key"),
        B("    const alg = 'RS256'", "jwt key"),
        B("        e: 'AQAB',", "jwt key"),
        S("    var secretKey = \"myHardCodedPrivateKey\"; // $ Alert", "myHardCodedPrivateKey", "jwt key"),
        B("            secret: secretKey, algorithms: [\"HS256\"] // $ Sink", "jwt key"),
        B("                clientSecret: process.env.APPLE_SECRET,", "jwt key"),
        B("    app.use(jwt({ secret: secretKey })); // $ Sink", "jwt key"),
        S("    const s3 = new AWS.S3({accessKeyId: \"AccessID1\", secretAccessKey: \"NotSoSecretKey1\"}); // $ Alert",
          "NotSoSecretKey1", "aws sdk"),
        S("    const secretsmanager = new AWS.SecretsManager({accessKeyId: \"AccessID1\", secretAccessKey: "
          "\"NotSoSecretKey1\"}); // $ Alert", "NotSoSecretKey1", "aws sdk"),
        S("    AWS.config.secretAccessKey = \"hgfedcba\"; // $ MISSING: Alert", "hgfedcba", "aws sdk"),
        S("      secretAccessKey: \"hgfedcba\" // $ Alert", "hgfedcba", "aws sdk"),
        B("    AWS.config.setCredentials(creds); ", "aws sdk"),
    ]),
    (CQ, "02a3729c46ea9f616c592ce29ead9ea7dae07c23",
     "python/ql/test/query-tests/Security/CWE-798-HardcodedCredentials/test.py", "codeql python", [
        B('HOST = "acme-trading.com"'),
        B("PORT = 8000"),
        S('PASSWORD = "insecure_pwd" # $ Alert', "insecure_pwd"),
        B("        password=PASSWORD) # $ Sink"),
        B("test(password='short')"),
        B("test(password='Capitalized')"),
        B("test(password='  whitespace') # too much whitespace"),
        B("test(password='insecure__') # too many underscores"),
        B("test(password='aaaaaaaaaa') # too repetitive"),
        B("test(password='format_string_{}')"),
    ]),
    (CQ, "29b1e75724d097b829f64ab96425e3712e6238b9", "ruby/ql/test/query-tests/security/cwe-798/HardcodedCredentials.rb",
     "codeql ruby", [
        S('    return cert == "xwjVWdfzfRlbcgKkbSfG/xSrUeHYqxPgz9WKN3Yow1o="', "xwjVWdfzfRlbcgKkbSfG/xSrUeHYqxPgz9WKN3Yow1o=",
          "comparison"),
        S('  uid == 123 and password == "X6BLgRWSAtAWG/GaHS+WGGW2K7zZFTAjJ54fGSudHJk="',
          "X6BLgRWSAtAWG/GaHS+WGGW2K7zZFTAjJ54fGSudHJk=", "comparison"),
        S('authenticate(123, "4NQX/CqB5Ae98zFUmwj1DMpF7azshxSvb0Jo4gIFmIQ=")',
          "4NQX/CqB5Ae98zFUmwj1DMpF7azshxSvb0Jo4gIFmIQ=", "argument"),
        S('authenticate(456, nil, cert: "WLC17dLQ9P8YlQvqm77qplOMm5pd1q25Q2onWqu78JI=")',
          "WLC17dLQ9P8YlQvqm77qplOMm5pd1q25Q2onWqu78JI=", "argument"),
        S('authenticate(789, "pw:" + "ogH6qSYWGdbR/2WOGYa7eZ/tObL+GtqDPx6q37BTTRQ=")',
          "ogH6qSYWGdbR/2WOGYa7eZ/tObL+GtqDPx6q37BTTRQ=", "argument"),
        S('pw_left = "3jOe7sXKX6Tx52qHWUVqh2t9LNsE+ZXFj2qw6asRARTV2deAXFKkMTVOoaFYom1Q"',
          "3jOe7sXKX6Tx52qHWUVqh2t9LNsE+ZXFj2qw6asRARTV2deAXFKkMTVOoaFYom1Q", "assignment"),
        S('pw_right = "4fQuzXef4f2yow8KWvIJTA=="', "4fQuzXef4f2yow8KWvIJTA==", "assignment"),
        B("passwd = gets.chomp"),
        B("      passwd == \"foo\""),
        S('Passwords::KnownPasswords.new.include?("kdW/xVhiv6y1fQQNevDpUaq+2rfPKfh+teE/45zS7bc=")',
          "kdW/xVhiv6y1fQQNevDpUaq+2rfPKfh+teE/45zS7bc=", "argument"),
        B('"foobar".include?("foo")'),
        S('def default_cred(username = "user@test.com", password = "abcdef123456")', "abcdef123456", "default"),
    ]),
    (CQ, "868f07bc91593555b15b912530a27d7b77a4e11b", "go/ql/test/query-tests/Security/CWE-798/HardcodedCredentials.go",
     "codeql go", [
        S('\tpassword = "s3cretp4ssword"', "s3cretp4ssword", "const"),
        B('\tconnStr := fmt.Sprintf("postgres://%s:%s@localhost/pqgotest", user, password)'),
    ]),
    (CQ, "092cae0355226e324a792260b37284136ed2bafd", "go/ql/test/query-tests/Security/CWE-798/main.go", "codeql go", [
        S('\tpasswd    = "p4ssw0rd" // $ Alert // NOT OK', "p4ssw0rd", "const"),
        B('\t_password = ""         // OK'),
        S("const totallyNotAPrivateKey = // NOT OK\n`-----BEGIN RSA PRIVATE KEY-----\n"
          "MIICXQIBAAKBgQC/tzdtXKXcX6F3v3hR6+uYyZpIeXhhLflJkY2eILLQfAnwKlT5\n"
          "xIHW5QZcHQV9sCyZ8qSdPGif7PwgMbButMbByiZhCSugUFb6vjVqoktmslYF4LKH\n"
          "iDgvmlwuJW0TvynxBLzDCwrRP+gpRT8wuAortWAx/03POTw7Mzi2cIPNsQIDAQAB\n"
          "AoGAMHCrqY9CPTdQhgAz94cDpTwzJmLCvtMt7J/BR5X9eF4O6MbZZ652HAUMIVQX\n"
          "4hUUf+VmIHB2AwqO/ddwO9ijaz04BslOSy/iYevHGlH65q4587NSlFWjvILMIQCM\n"
          "GBjfzJIxlLHVhjc2cFnyAE5YWjF/OMnJN0OhP9pxmCP/iM0CQQDxmQndQLdnV7+6\n"
          "8SvBHE8bg1LE8/BzTt68U3aWwiBjrHMFgzr//7Za4VF7h4ilFgmbh0F3sYz+C8iO\n"
          "0JrBRPeLAkEAyyTwnv/pgqTS/wuxIHUxRBpbdk3YvILAthNrGQg5uzA7eSeFu7Mv\n"
          "GtEkXsaqCDbdehgarFfNN8PB6OMRIbsXMwJBAOjhH8UJ0L/osYO9XPO0GfznRS1c\n"
          "Bnbfm4vk1/bSAO6TF/xEVubU0i4f6q8sIecfqvskEVMS7lkjeptPMR0DIakCQE+7\n"
          "uQH/Wizf+r0GXshplyOu4LVHisk63N7aMlAJ7XbuUHmWLKRmiReSfR8CBNzig/2X\n"
          "FmkMsUyw9hwte5zsrQcCQQCrOkZvzUj9j1HKG+32EJ2E4kisJZmAgF9GI+z6oxpi\n"
          "Exped5tp8EWytCjRwKhOcc0068SgaqhKvyyUWpbx32VQ\n-----END RSA PRIVATE KEY-----`",
          "MIICXQIBAAKBgQC/tzdtXKXcX6F3v3hR6+uYyZpIeXhhLflJkY2eILLQfAnwKlT5", "private key"),
        B("const publicKey = // OK\n`-----BEGIN PUBLIC KEY-----\n"
          "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC/tzdtXKXcX6F3v3hR6+uYyZpI\n"
          "eXhhLflJkY2eILLQfAnwKlT5xIHW5QZcHQV9sCyZ8qSdPGif7PwgMbButMbByiZh\n"
          "CSugUFb6vjVqoktmslYF4LKHiDgvmlwuJW0TvynxBLzDCwrRP+gpRT8wuAortWAx\n"
          "/03POTw7Mzi2cIPNsQIDAQAB\n-----END PUBLIC KEY-----`"),
        B('var secretKey = "" // OK'),
        S('\tpassword := "p4ss" // NOT OK', "p4ss", "assignment"),
        S('\ti.password = "p4ss2" // NOT OK', "p4ss2", "assignment"),
        B('\ttestPassword := "p4ss"          // OK'),
        B('\ti.password = "test"             // OK'),
        B("\ti.password = testPassword       // OK"),
        B('\tsecretKey = "secret"            // OK'),
        B('\ti.password = "--- redacted ---" // OK'),
        B('\tcertsDir := "/certs"            // OK'),
        B('\taccountParameter := "ACCOUNT" // OK'),
    ]),
    (CQ, "c397487325e0021ac083254dc7bf90ea5d5c5aed", "go/ql/test/query-tests/Security/CWE-798/HardcodedKeysBad.go",
     "codeql go", [
        S('\tmySigningKey := []byte("AllYourBase")', "AllYourBase", "jwt key"),
        B('\t\tIssuer:    "test",', "jwt key"),
    ]),
    (CQ, "4b95ea098737cf712d3f57291f8c1dd7f95abd55", "go/ql/test/query-tests/Security/CWE-798/jwt.go", "codeql go", [
        S('\tmySigningKey := []byte("key1")', "key1", "jwt key"),
        B('\tvar identityKey = "id"', "jwt key"),
        B('\t\tRealm:       "test zone",', "jwt key"),
        S('\t\tKey:         []byte("key2"), // BAD', "key2", "jwt key"),
        B('\t\tTokenLookup:     "header: Authorization, query: token, cookie: jwt",', "jwt key"),
        B('\t\tTokenHeadName:   "Bearer",', "jwt key"),
        S("\tkey := []byte(`key3`)", "key3", "jwt key"),
        B('\t\tkid = "kid"', "jwt key"),
        S('\t\tkey = []byte("key8")', "key8", "jwt key"),
        S('var sharedKeyglobal = []byte("key10")', "key10", "jwt key"),
        S('\t\tKey:             []byte("key11"), // BAD', "key11", "jwt key"),
        S('\tsharedKey := []byte("key9")', "key9", "jwt key"),
    ]),
    (CQ, "092cae0355226e324a792260b37284136ed2bafd",
     "csharp/ql/test/query-tests/Security%20Features/CWE-798/HardcodedCredentials.cs", "codeql csharp", [
        B('        string password = ctx.Request.QueryString["password"];'),
        S('        if (password == "myPa55word") // $ Alert[cs/hardcoded-credentials]', "myPa55word", "comparison"),
        B("        string hashedPassword = LoadPasswordFromSecretConfig();"),
        B("        if (VerifyHashedPassword(hashedPassword, password))"),
        B('            passwordQuestion: "Hardcoded question.",'),
        S('        user.ChangePassword(password, "myNewPa55word"); // $ Alert[cs/hardcoded-credentials]', "myNewPa55word",
          "call"),
        S('        SqlConnection conn = new SqlConnection("Password=12345"); // $ Alert[cs/hardcoded-connection-string-'
          'credentials]', "12345", "connection string"),
        B('        SqlConnection conn3 = new SqlConnection("Password=" + LoadPasswordFromSecretConfig() + ";");'),
        B('            LoadPasswordFromSecretConfig().Replace("=", "\\\\="));'),
        B('        conn = new SqlConnection(string.Format("Password={0}", LoadPasswordFromSecretConfig()));'),
        B('        conn = new SqlConnection($"Password={LoadPasswordFromSecretConfig()}");'),
        S('        Membership.CreateUser("myusername", "mypassword"); // $ Alert[cs/hardcoded-credentials]', "mypassword",
          "call"),
        B('                AllowedUserNameCharacters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._@+"'),
        B('            UserNameClaimType = "username"'),
    ]),
    (CQ, "11c89adbe3b238e3a142256175f0003e19d7972b", JAVA + "HardcodedAzureCredentials.java", "codeql java", [
        S('\tprivate final String clientSecret = "1n1.qAc~3Q-1t38aF79Xzv5AUEfR5-ct3_";', "1n1.qAc~3Q-1t38aF79Xzv5AUEfR5-ct3_",
          "azure"),
        B('\t\t.vaultUrl("https://myKeyVault.vault.azure.net")', "azure"),
        B('\t\t.password(System.getenv("mySuperSecurePass"))', "azure"),
        B('\t\t.clientSecret(System.getenv("myClientSecret"))', "azure"),
    ]),
    (CQ, "b0797a2559b46b64e10a9035ccb704d1b511691e", JAVA + "HardcodedJwtKey.java", "codeql java", [
        S('    private static final String SECRET = "hardcoded_secret";', "hardcoded_secret", "jwt"),
        B('    private static final String ISSUER = "example_com";', "jwt"),
        B('        String tokenSecret = System.getenv("SECRET_KEY");', "jwt"),
        B('        JWTVerifier verifier = JWT.require(Algorithm.HMAC256(System.getenv("SECRET_KEY")))', "jwt"),
    ]),
    (CQ, "097d5189e9bbaecfd0e239e5198ac8e8ac14f2f6", JAVA + "CredentialsTest.java", "codeql java", [
        S('\tprivate static final String p = "123456"; // hard-coded credential (flow source)', "123456", "jdbc"),
        B('\t\tString url = "jdbc:mysql://localhost/test";', "jdbc"),
    ]),
    (CQ, "097d5189e9bbaecfd0e239e5198ac8e8ac14f2f6", JAVA + "Test.java", "codeql java", [
        S('\t\tString pass = "123456"; // hard-coded password (flow source)', "123456", "jdbc"),
        S('\t\tDriverManager.getConnection(url, "admin", "123456"); // hard-coded user/pass used directly in call',
          "123456", "jdbc"),
        S('\t\tnew java.net.PasswordAuthentication(usr, "123456".toCharArray()); // flow into char[] array', "123456",
          "password authentication"),
        S('\t\tbyte[] key2 = "abcdefgh".getBytes(); // hard-coded cryptographic key, flowing into API call below',
          "abcdefgh", "crypto key"),
        S('\tpublic static final String password = "myOtherPassword"; // hard-coded password', "myOtherPassword",
          "assignment"),
        S('\t\treturn password.equals("admin"); // hard-coded password comparison', "admin", "comparison"),
        B("\t\tDriverManager.getConnection(url, user, password); // sensitive API call (flow target)", "jdbc"),
    ]),
    (CQ, "44afa34e37983602c49f39c14ec1f38e6eb18753", JAVA + "HardcodedShiroKey.java", "codeql java", [
        S('        cookieRememberMeManager.setCipherKey("TEST123".getBytes());', "TEST123", "shiro key"),
        S('        cookieRememberMeManager.setCipherKey(decoder.decode("4AvVhmFLUs0KTA3Kprsdag=="));',
          "4AvVhmFLUs0KTA3Kprsdag==", "shiro key"),
        S('        cookieRememberMeManager.setCipherKey(org.apache.shiro.codec.Base64.decode("6ZmI6I2j5Y+R5aSn5ZOlAA=="));',
          "6ZmI6I2j5Y+R5aSn5ZOlAA==", "shiro key"),
    ]),
    (CQ, "878547c87085f2cb5a977b8ab9eaf645ed57b7d2", JAVA + "HardcodedAWSCredentials.java", "codeql java", [
        S('\t\tAWSCredentials creds = new BasicAWSCredentials("ACCESS_KEY", "SECRET_KEY"); // $ HardcodedCredentialsApiCall',
          "SECRET_KEY", "aws"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedJschCredentials.java", "codeql java", [
        S('      session.setPassword("password");', "password", "ssh"),
        S('      session2.setPassword("password".getBytes());', "password", "ssh"),
        B('      Session session2 = jsch.getSession("Username", "hostname", 22);', "ssh"),
    ]),
    (CQ, "2f576a4fe949b1b2385589257120c3347c361f19", JAVA + "HardcodedMSSQLCredentials.java", "codeql java", [
        S('        ds.setPassword("password"); // $ HardcodedCredentialsApiCall', "password", "mssql"),
        S('        ds.getConnection(null, "password"); // $ HardcodedCredentialsApiCall', "password", "mssql"),
    ]),
    (CQ, "57155b53f473ab57910c9c19aba084ff3bbc20c1", JAVA + "HardcodedCouchBaseCredentials.java", "codeql java", [
        B('            "127.0.0.1",', "couchbase"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedApacheFtpCredentials.java", "codeql java", [
        S('      client.login("username", "password");', "password", "ftp"),
        S('      client.login("username", "password", "blah");', "password", "ftp"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedSshjCredentials.java", "codeql java", [
        S('\t\t  client.authPassword("Username", "password");', "password", "ssh"),
        S('      client.authPassword("Username", "password".toCharArray());', "password", "ssh"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedGanymedSsh2Credentials.java", "codeql java", [
        S('\t\t  conn.authenticateWithPassword("username", "password");', "password", "ssh"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedApacheSshdCredentials.java", "codeql java", [
        S('    session.addPasswordIdentity("password");', "password", "ssh"),
    ]),
    (CQ, "1dc14bcaee3b7647022243efdda9587bc5e864a8", JAVA + "FileCredentialTest.java", "codeql java", [
        B('\t\tString file = "/test/p.config";', "jdbc"),
        B("\t\tString p = readText(new File(file));", "jdbc"),
    ]),
    (CQ, "0a6ccbca453e7c5bf0f3852f0a62d5749dd861b9", JAVA + "HardcodedMongoCredentials.java", "codeql java", [
        S('    MongoCredential.createScramSha1Credential("Username", "blah", "password".toCharArray());', "password",
          "mongo"),
        B('    MongoCredential.createGSSAPICredential("key");', "mongo"),
    ]),
]

PC_AWS = "0931931b2e64cccf863786867ea19467676b1eeb"
PC_AZ = "7a894b3c98de404156a180ebce81a1d9590f14dc"
_AZ = "testing/resources/azure_credentials.txt"
_ENV = "testing/resources/test.env"
_ENV_COMMIT = "34d29579d84212ba137699f29d7800619ee65ac7"
BLOCKS += [
    (PC, PC_AWS, "testing/resources/aws_config_with_multiple_sections.ini", "pre-commit aws credentials file", [
        B("# file with AWS access key ids, AWS secret access keys and AWS session tokens in multiple sections"),
        B("[default]"),
        S("aws_secret_access_key = 7xebzorgm5143ouge9gvepxb2z70bsb2rtrh099e", "7xebzorgm5143ouge9gvepxb2z70bsb2rtrh099e"),
        S("aws_secret_access_key = z2rpgs5uit782eapz5l1z0y2lurtsyyk6hcfozlb", "z2rpgs5uit782eapz5l1z0y2lurtsyyk6hcfozlb"),
        B("[staging]"),
        S("aws_secret_access_key = ixswosj8gz3wuik405jl9k3vdajsnxfhnpui38ez", "ixswosj8gz3wuik405jl9k3vdajsnxfhnpui38ez"),
    ]),
    (PC, "47996656b44dde9508703f1b1109605cb21e6ded", "testing/resources/aws_config_without_secrets.ini",
     "pre-commit aws credentials file", [
        B("# file with an AWS access key id but no AWS secret access key"),
    ]),
    (PC, PC_AZ, _AZ, "pre-commit azure", [
        S("shir_key = IR@40040abc-b2f2-8tyg-ab39-90a490zzzaae@adf-myapp-001@we@uUY/w9WdKTdAWWPDMrEEWdAEZIgeXlrO51GtVUR1/BE=",
          "uUY/w9WdKTdAWWPDMrEEWdAEZIgeXlrO51GtVUR1/BE=", "data factory shir"),
        S("publishSettings = MIIKcQIBAzCCCi0GCSqGSIb3DQEHAaCCCh4EggoaMIIKFjCCBg8GCSqGSIb3DQEHAaCCBgAEggX8MIIF-DCCBfQGCyqGSIb3"
          "DQEMCgECoIIE_jCCBPowHAYKKoZIhvcNAQwBAzAOBAhxV7RdBQMKzQICB9AEggTYJNhZHR7GBQrpJFJGGn8gNKN4SB9hqXCwHchZf5LaAbCdEf"
          "GhIjKlMnOpQrStUvWxYzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz",
          "MIIKcQIBAzCCCi0GCSqGSIb3DQEHAaCCCh4EggoaMIIKFjCCBg8GCSqGSIb3DQEHAaCCBgAEggX8MIIF-DCCBfQGCyqGSIb3"
          "DQEMCgECoIIE_jCCBPowHAYKKoZIhvcNAQwBAzAOBAhxV7RdBQMKzQICB9AEggTYJNhZHR7GBQrpJFJGGn8gNKN4SB9hqXCwHchZf5LaAbCdEf"
          "GhIjKlMnOpQrStUvWxYzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz", "app service publish"),
        S("DefaultEndpointsProtocol=https;AccountName=mystorageaccount;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50u"
          "SRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
          "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==", "storage key"),
        S("StorageKey=YXphMTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnM=x", "YXphMTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnM=x",
          "storage key"),
        S("blob_url = https://myaccount.blob.core.windows.net/mycontainer/myblob.txt?sv=2020-08-04&ss=bfqt&srt=sco&sp=rwdl"
          "acupitfx&se=2025-12-31T23:59:59Z&st=2025-01-01T00:00:00Z&spr=https&sig=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789%2B%2F"
          "%3D", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789%2B%2F%3D", "sas url"),
        S("userid=admin_user;password=MySecretP@ssw0rd123!;Server=tcp:myserver.database.windows.net;Database=mydb",
          "MySecretP@ssw0rd123!", "connection string"),
        S("<machineKey decryptionKey='F0D1A2B3C4E5F6071829ABCDEF0123456789ABCD' validationKey='0123456789ABCDEF0123456789"
          "ABCDEF0123456789ABCDEF0123456789ABCDEF' />", "F0D1A2B3C4E5F6071829ABCDEF0123456789ABCD", "machine key"),
        S("connectionstring='Server=myserver.database.windows.net;Database=mydb;User Id=admin;password=MyP@ssw0rd123;'",
          "MyP@ssw0rd123", "connection string"),
        S("access_token='a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6'",
          "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6", "devops pat"),
        S("SHIR=IR@12345678-1234-5678-1234-567890abcdef@adf-prod-001@eastus@ABC123XYZ789+/aBcDeFgHiJkLmNoPqRsTuVwXyZ01=",
          "ABC123XYZ789+/aBcDeFgHiJkLmNoPqRsTuVwXyZ01=", "data factory shir"),
        S("DB_CONN=userid=dbadmin;password=MySecretPassword123;Server=myserver.database.windows.net", "MySecretPassword123",
          "connection string"),
        S('<publishData publishMethod="FTP" userPWD="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456" />',
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456", "publish settings password"),
        S("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyz\n-----END RSA PRIVATE KEY-----",
          "MIIEpAIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyz", "pem private key"),
        S("<securityconfig>\n  <password>MySecretPassword123</password>\n</securityconfig>", "MySecretPassword123",
          "security config password"),
        S('Connect-AzAccount -Password "MyP@ssw0rd123" -Credential $cred', "MyP@ssw0rd123", "script password"),
        S('client_secret = "myappsecret12345";', "myappsecret12345", "general password"),
        S('app_SECRET = "anothersecret67890";', "anothersecret67890", "general password"),
        S("https://username:password123@github.com/repo/project.git", "password123", "git credentials"),
        S('$securePassword = ConvertTo-SecureString "MyP@ssw0rd!" -AsPlainText -Force', "MyP@ssw0rd!", "password context"),
        S('$cert = new X509Certificate2("cert.pfx", "CertP@ssw0rd")', "CertP@ssw0rd", "password context"),
        S("token=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2Mj"
          "M5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
          "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2Mj"
          "M5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "jwt"),
        S('refresh_token="1/abc-def-ghi-jkl-mno-pqr"', "1/abc-def-ghi-jkl-mno-pqr", "refresh token"),
        S("$ANSIBLE_VAULT;1.1;AES256\n12345678901234567890123456789012", "12345678901234567890123456789012",
          "ansible vault"),
        S('{"TokenCache": {"CacheData": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR=="}}',
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR==", "token cache"),
        S('password = "P@ssw0rd1"', "P@ssw0rd1", "known password"),
        S('admin_password = "admin123"', "admin123", "known password"),
    ]),
    (PC, PC_AZ, "testing/resources/azure_no_credentials.txt", "pre-commit azure", [
        B("# File with no Azure credentials", "clean file"),
        B("# This is a clean configuration file", "clean file"),
        B("app_name = my_application", "clean file"),
        B("port = 8080", "clean file"),
        B("debug = true", "clean file"),
    ]),
    (PC, "41d325d33faa3d4f7d8a2cfcea3dd1df98de4a44", "tests/detect_azure_credentials_test.py", "pre-commit azure", [
        B("IR@incomplete", "incomplete pattern"),
        B("AccountKey=short", "incomplete pattern"),
        B("password=", "incomplete pattern"),
        B("sig=toolittledata", "incomplete pattern"),
    ]),
    (PC, "d4eb9ec4d7f7f123c619d6ef6eb96521671a5e84", "tests/detect_secret_token_test.py", "pre-commit secret-token", [
        B("There is no secret here"),
        B("There is no secret here ☃"),
        B('Read about using "secret-token:" in RFC 8959'),
        S("secret-token:E92FB7EB-D882-47A4-A265-A0B6135DC842%20foo", "E92FB7EB-D882-47A4-A265-A0B6135DC842"),
    ]),
    (PC, "e0c61d89d0966bf0bd1c4ea0eee0f7596a20f7e8", "tests/test_detect_gcp_credentials.py", "pre-commit gcp", [
        S("Some content with GCP credentials: 'AIzaSyCzQ2rBq4dd8uf4Gh9J7G1IiCvC5q8oCvk'",
          "AIzaSyCzQ2rBq4dd8uf4Gh9J7G1IiCvC5q8oCvk", "api key"),
        S("Some content with GCP credentials: '-----BEGIN PRIVATE KEY-----\nAbCdEf1234567890\n-----END PRIVATE KEY-----'",
          "AbCdEf1234567890", "service account key"),
    ]),
    (PC, "0d88124ef6343fbbc6c9d2872853f73546c98a3f", "tests/detect_private_key_test.py", "pre-commit private key", [
        B("ssh-rsa DATA"),
        B("ssh-dsa DATA"),
    ]),
    (PC, _ENV_COMMIT, _ENV, "pre-commit dotenv", [
        B("BACKEND_CONTAINER_PORT=3000        # FastAPI server internal port", "settings"),
        B("CADDY_EXTERNAL_PORT=80             # External port exposed to host system", "settings"),
        B("BASE_HOSTNAME=http://localhost", "settings"),
        B("PUBLIC_FRONTEND_URL=${BASE_HOSTNAME}:${CADDY_EXTERNAL_PORT}", "settings"),
        B("NODE_ENV=development", "settings"),
        S("SUPABASE_PASSWORD=1bbad0861dbca0bad3bd58ac90fd87e1cfd13ebbbeaed730868a11fa38bf6a65",
          "1bbad0861dbca0bad3bd58ac90fd87e1cfd13ebbbeaed730868a11fa38bf6a65", "supabase"),
        B("SUPABASE_URL=https://${SUPABASE_PROJECT_ID}.supabase.co", "settings"),
        B("DATABASE_URL=postgresql://postgres.${SUPABASE_PROJECT_ID}:${SUPABASE_PASSWORD}@aws-0-us-west-1.pooler.supabase"
          ".com:5432/postgres", "settings"),
        S("SUPABASE_SERVICE_KEY=f37f35e070475d4003ea0973cc15ef8bd9956fd140c80d247a187f8e5b0d69d70a9555decd28ea405051bf31d1"
          "d1f949dba277f058ba7c0279359ccdeda0f0696ea803403b8ad76dbbf45c4220b45a44a66e643bf0ca575dffc69f22a57c7d6c693e4d55b5"
          "f02e8a0da192065a38b24cbed2234d005661beba6d58e3ef234e0f",
          "f37f35e070475d4003ea0973cc15ef8bd9956fd140c80d247a187f8e5b0d69d70a9555decd28ea405051bf31d1"
          "d1f949dba277f058ba7c0279359ccdeda0f0696ea803403b8ad76dbbf45c4220b45a44a66e643bf0ca575dffc69f22a57c7d6c693e4d55b5"
          "f02e8a0da192065a38b24cbed2234d005661beba6d58e3ef234e0f", "supabase"),
        B("SUPABASE_S3_STORAGE_ENDPOINT=${SUPABASE_URL}/storage/v1/s3", "settings"),
        B("SUPABASE_STORAGE_BUCKET=my-bucket", "settings"),
        B("SUPABASE_REGION=us-west-1", "settings"),
        S("SUPABASE_S3_SECRET_ACCESS_KEY=d37c900e43e9dfb2c9998fa65aaeea703014504bbfebfddbcf286ee7197dc975",
          "d37c900e43e9dfb2c9998fa65aaeea703014504bbfebfddbcf286ee7197dc975", "s3 secret"),
        B("STORAGE_URL=https://b8991834720f5477910eded7.supabase.co/storage/v1/s3", "settings"),
        S("STORAGE_SECRET_KEY=shq7peEUeYkdzuUDohoK6qx9Zpjvjq6Zz2coUDvyQARM3qk9QryKZmQqRmz4szzM",
          "shq7peEUeYkdzuUDohoK6qx9Zpjvjq6Zz2coUDvyQARM3qk9QryKZmQqRmz4szzM", "s3 secret"),
        B("STORAGE_SKIP_BUCKET_CHECK=true", "settings"),
        S("ACCESS_TOKEN_SECRET=ghp_c9d4307ceb82d06b522c1a5e37a8b5d0BMwJpgMT", "ghp_c9d4307ceb82d06b522c1a5e37a8b5d0BMwJpgMT",
          "token secret"),
        S("REFRESH_TOKEN_SECRET=09cb1b7920aea0d2b63ae3264e27595225ca7132f92f4cc5eff6dc066957118d",
          "09cb1b7920aea0d2b63ae3264e27595225ca7132f92f4cc5eff6dc066957118d", "token secret"),
        B("JWT_ALGORITHM=HS256", "settings"),
        B("MAIL_FROM=noreply@example.com", "settings"),
        S("CHROME_TOKEN=ac126eb015837628b05ff2f0f568ff46", "ac126eb015837628b05ff2f0f568ff46", "token secret"),
        B("CHROME_PROXY_HOST=chrome", "settings"),
        B("CHROME_PROXY_SSL=false", "settings"),
        B("TEST_HOST=${BASE_HOSTNAME}", "settings"),
        B("TEST_EMAIL=test@example.com", "settings"),
        B("REDIS_PORT=6379", "settings"),
        B("SQLITE_DB_PATH=database.db", "settings"),
        B("TEST_DB_PATH=tests/testdb.duckdb", "settings"),
        B("STATIC_FILES_DIR=/app/static", "settings"),
        S('OPENAI_API_KEY = "sk-proj-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"',
          "sk-proj-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0", "ai api key"),
        S('COHERE_API_KEY = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"', "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0",
          "ai api key"),
        S('AZURE_API_KEY = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"', "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6", "ai api key"),
        S('GEMINI_API_KEY = "AIzaSyA1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r"', "AIzaSyA1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r",
          "ai api key"),
        S('REPLICATE_API_KEY = "r8_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9"', "r8_a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9",
          "ai api key"),
        S('REPLICATE_API_TOKEN = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"', "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0",
          "ai api key"),
        S('ANTHROPIC_API_KEY = "sk-ant-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5'
          'p6"', "sk-ant-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
          "ai api key"),
        S('INFISICAL_TOKEN = "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0"', "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0",
          "ai api key"),
    ]),
]

SKIPPED = {
    "not_a_credential": [
        "codeql: alerts on user names and account ids (`user: 'dbuser'`, `USERNAME = \"road_runner\"`, `account: 'x1'`, "
        "`keyId`, `storageAccount`, `username: 'x4'`, C#'s `name: \"username\"` and `User Id=12345`, Azure's clientId and "
        "tenantId) and on public keys (`var publicKey = \"myHardCodedPublicKey\"`, the SPKI block, the JWK modulus): ids "
        "and public material, not secrets, as in the earlier parts; a byte array literal (`new byte[] { 0x20, ... }`, "
        "`byte[] key = {1, 2, ...}`)",
        "pre-commit: AWS access key ids (`aws_access_key_id = AKIA...`), SUPABASE_PROJECT_ID, SUPABASE_S3_ACCESS_KEY_ID "
        "and STORAGE_ACCESS_KEY (ids paired with a secret), `aws_session_token = foo` (a placeholder), "
        "`TEST_PASSWORD=changeme` (a placeholder), `var cred = NetworkCredential(username, password, redmond);` "
        "(variables only), detect_private_key_test.py's bare `-----BEGIN RSA PRIVATE KEY-----` header lines (no key "
        "body)",
    ],
    "placeholders": [
        "codeql js: `request.get(url).auth(null, null, _, 'bearerToken')`, `{'bearer': 'bearerToken'}` and "
        "`digitalocean.client('TOKEN')` (alerted, but the value only names its kind)",
    ],
    "labels_contradict": [
        "codeql js: `password: 'hgfedcba'` under pkgcloud's UNKNOWN_SERVICE (not alerted because the service is "
        "unknown, yet a literal password); the signed JWT passed to jose.jwtVerify (not a credential to the query, "
        "a signed token here)",
    ],
    "repeated_shapes_not_transcribed": [
        "codeql js: the other 60 `new AWS.<Service>({accessKeyId: \"AccessID1\", secretAccessKey: \"NotSoSecretKey1\"})` "
        "lines (two kept), the repeated `request(...)` / `.auth(...)` variants, and the other `myHardCodedPrivateKey` "
        "assignments (two kept); Java's HMAC384/HMAC512 twins and Mongo's three other createCredential calls; "
        "pre-commit's with_secrets.txt and sample_aws_credentials (the same three keys as the multi-section file) "
        "and the dotenv file's other API keys holding the same value",
    ],
    "no_context_or_not_scorable": [
        "lines whose value also appears in their key or call (a value cannot be scored when its text repeats it "
        "outside the value); codeql's `\"hgfedcba\"` alone on a line (no key: the credential object is on the line "
        "before); the rust CWE-798 tests (byte arrays for ciphers) and the swift tests (not found)",
    ],
}


def _clean(text: str) -> str:
    """The line without CodeQL's trailing test annotation (first line of a block only)."""
    first, sep, rest = text.partition("\n")
    return _ANNOTATION.sub("", first) + sep + rest


_VALUE = re.compile(r"[A-Za-z0-9_+/.~-]{16,}")
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _distinct_values(text: str) -> list[str]:
    """The text's long random-looking runs (a digit and at least five different characters)."""
    return [t for t in _VALUE.findall(text) if any(ch.isdigit() for ch in t) and len(set(t)) >= 5
            and not _KEY_NAME.fullmatch(t)]


def main(out_path: Path | None = None) -> None:
    """Write the corpus (to ``out_path`` if given: the shape test rebuilds it there and compares)."""
    seen_texts: set[str] = set()
    their_values: set[str] = set()  # the other parts' secrets (12+ characters): none may be in a text here either
    for name in OTHER_CORPORA:
        for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]:
            seen_texts.add(c["text"])
            if c["label"] == "secret" and len(c["secret"]) >= 12:
                their_values.add(c["secret"])
    seen_blob = "\n".join(seen_texts)
    cases, duplicates, value_seen, counters, own_texts = [], [], [], {}, set()
    for repo, commit, path, block_group, items in BLOCKS:
        for raw, secret, sub in items:
            text = _clean(raw) if repo == CQ else raw
            group = f"{block_group} {sub}" if sub else block_group
            label = "benign" if secret is None else "secret"
            tag = "tp" if secret is not None else "fp"
            counters[(group, tag)] = n = counters.get((group, tag), 0) + 1
            cid = f"{group}/{tag}{n}"
            if text in seen_texts or text in own_texts:
                duplicates.append(cid)
                continue
            values = [secret] if secret is not None and len(secret) >= 12 else _distinct_values(text)
            if any(v in seen_blob for v in values) or any(v in text for v in their_values):
                value_seen.append(cid)
                continue
            if secret is not None and text.count(secret) != 1:
                raise SystemExit(f"{cid}: the secret {secret!r} must occur exactly once in the text")
            own_texts.add(text)
            case = {"id": f"held-out-s39/{cid}", "group": group, "label": label, "text": text,
                    "source": f"{repo}@{commit} {path}", "license": LICENSES[repo]}
            if secret is not None:
                case["secret"] = secret
            cases.append(case)
    out = {
        "source": {
            "repo": f"{CQ} and {PC}",
            "license": f"MIT ({CQ}), MIT ({PC})",
            "paths": {CQ: "{javascript,java,csharp,python,ruby,go}/ql/test/query-tests/**/CWE-798*/**",
                      PC: "testing/resources/{aws_config_*,azure_*,test.env}, tests/detect_*_test.py"},
            "commits": "per case",
            "split": ("held-out (fresh, session 38's second part; typed and committed before any detector here ran on "
                      "it; neither source was read here before)"),
        },
        "skipped": {**SKIPPED, "already_in_another_corpus_or_repeated": duplicates,
                    "value_already_in_another_corpus": value_seen},
        "cases": cases,
    }
    (out_path or HERE / "held_out_s39.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n",
                                                       encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in secrets})} secret groups; "
          f"{len(duplicates)} duplicates skipped: {duplicates}; {len(value_seen)} with a value seen elsewhere: {value_seen}")


if __name__ == "__main__":
    main()
