// The C# side of the load benchmark (benches/harness/src/loadbench.rs, docs/performance.md "Loading"): compiled
// with mcs together with a benchmark set's generated/csharp, run once per measurement under mono.
//   mono loadbench.exe <mode> <data dir>
// prints the milliseconds the mode took (the process's own start-up and JIT of this file excluded; the JIT of the
// loader is part of loading). Everything read stays reachable until the time is taken, as loaded tables do.
// Modes:
//   read    the file-read floor: File.ReadAllBytes of every data file
//   parse   the plain-parse floor: every file parsed into a generic tree (Dictionary / List / string / long /
//           double / bool) by GenericJson below, the fastest general JSON reader plain C# 7.2 has under both
//           mono and Unity without packages (see docs/performance.md for why)
//   json    Tables.Load(dir): the generated loader (<Table>.json)
//   binary  Tables.Load(dir) with data = ["binary"]: the generated loader (<Table>.bytes)
namespace GentableLoadBench
{
    using System;
    using System.Collections.Generic;
    using System.Diagnostics;
    using System.IO;
    using System.Text;

    internal static class Program
    {
        private static int Main(string[] args)
        {
            string mode = args[0], dir = args[1];
            var files = Bench.GameConfig.Tables.DataFiles;
            object keep;
            var sw = Stopwatch.StartNew();
            switch (mode)
            {
                case "read":
                    {
                        var all = new List<byte[]>();
                        foreach (var f in files) all.Add(File.ReadAllBytes(Path.Combine(dir, f)));
                        keep = all;
                        break;
                    }
                case "parse":
                    {
                        var all = new List<object>();
                        foreach (var f in files) all.Add(new GenericJson(File.ReadAllBytes(Path.Combine(dir, f))).Parse());
                        keep = all;
                        break;
                    }
                case "json":
                case "binary":
                    keep = Bench.GameConfig.Tables.Load(dir);
                    break;
                default:
                    Console.Error.WriteLine("unknown mode " + mode);
                    return 2;
            }
            sw.Stop();
            Console.Out.WriteLine(sw.Elapsed.TotalMilliseconds.ToString("F1", System.Globalization.CultureInfo.InvariantCulture));
            GC.KeepAlive(keep);
            return 0;
        }
    }

    /// <summary>
    /// A general JSON reader (RFC 8259) over UTF-8 bytes into Dictionary&lt;string, object&gt;, List&lt;object&gt;,
    /// string, long (integers), double, bool and null: what any JSON reader must at least do with the same bytes.
    /// Same techniques as the generated reader (bytes, ASCII fast path, no intermediate text), no type checks.
    /// </summary>
    internal sealed class GenericJson
    {
        private static readonly UTF8Encoding Utf8 = new UTF8Encoding(false, true);
        private readonly byte[] b;
        private int pos;
        private char[] chars = new char[64];

        internal GenericJson(byte[] bytes)
        {
            this.b = bytes;
        }

        internal object Parse()
        {
            object v = this.Value();
            this.Ws();
            if (this.pos != this.b.Length) throw new FormatException("trailing text");
            return v;
        }

        private void Ws()
        {
            while (this.pos < this.b.Length)
            {
                byte c = this.b[this.pos];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
                this.pos++;
            }
        }

        private object Value()
        {
            this.Ws();
            byte c = this.b[this.pos];
            switch (c)
            {
                case (byte)'{':
                    {
                        this.pos++;
                        var d = new Dictionary<string, object>();
                        this.Ws();
                        if (this.b[this.pos] == '}') { this.pos++; return d; }
                        while (true)
                        {
                            this.Ws();
                            string k = this.Str();
                            this.Ws();
                            if (this.b[this.pos++] != ':') throw new FormatException("':'");
                            d[k] = this.Value();
                            this.Ws();
                            byte n = this.b[this.pos++];
                            if (n == '}') return d;
                            if (n != ',') throw new FormatException("','");
                        }
                    }
                case (byte)'[':
                    {
                        this.pos++;
                        var l = new List<object>();
                        this.Ws();
                        if (this.b[this.pos] == ']') { this.pos++; return l; }
                        while (true)
                        {
                            l.Add(this.Value());
                            this.Ws();
                            byte n = this.b[this.pos++];
                            if (n == ']') return l;
                            if (n != ',') throw new FormatException("','");
                        }
                    }
                case (byte)'"': return this.Str();
                case (byte)'t': this.pos += 4; return true;
                case (byte)'f': this.pos += 5; return false;
                case (byte)'n': this.pos += 4; return null;
                default: return this.Number();
            }
        }

        private object Number()
        {
            int start = this.pos;
            bool neg = this.b[this.pos] == '-';
            if (neg) this.pos++;
            long v = 0;
            bool integer = true;
            while (this.pos < this.b.Length)
            {
                byte c = this.b[this.pos];
                if (c >= '0' && c <= '9') { v = v * 10 + (c - '0'); this.pos++; }
                else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') { integer = false; this.pos++; }
                else break;
            }
            if (integer && this.pos - start < 18) return neg ? -v : v;
            var t = new char[this.pos - start];
            for (int i = 0; i < t.Length; i++) t[i] = (char)this.b[start + i];
            return double.Parse(new string(t), System.Globalization.CultureInfo.InvariantCulture);
        }

        private string Str()
        {
            if (this.b[this.pos] != '"') throw new FormatException("'\"'");
            int start = ++this.pos;
            int ascii = 0;
            while (true)
            {
                byte c = this.b[this.pos];
                if (c == '"') break;
                if (c == '\\') return this.Escaped(start);
                ascii |= c;
                this.pos++;
            }
            int len = this.pos - start;
            this.pos++;
            if (ascii < 0x80)
            {
                if (this.chars.Length < len) this.chars = new char[len * 2];
                for (int i = 0; i < len; i++) this.chars[i] = (char)this.b[start + i];
                return new string(this.chars, 0, len);
            }
            return Utf8.GetString(this.b, start, len);
        }

        private string Escaped(int start)
        {
            var sb = new StringBuilder();
            this.pos = start;
            int run = start;
            while (true)
            {
                byte c = this.b[this.pos];
                if (c != '"' && c != '\\') { this.pos++; continue; }
                sb.Append(Utf8.GetString(this.b, run, this.pos - run));
                if (c == '"') { this.pos++; return sb.ToString(); }
                byte e = this.b[this.pos + 1];
                this.pos += 2;
                switch (e)
                {
                    case (byte)'n': sb.Append('\n'); break;
                    case (byte)'t': sb.Append('\t'); break;
                    case (byte)'r': sb.Append('\r'); break;
                    case (byte)'b': sb.Append('\b'); break;
                    case (byte)'f': sb.Append('\f'); break;
                    case (byte)'u':
                        sb.Append((char)Convert.ToInt32(Encoding.ASCII.GetString(this.b, this.pos, 4), 16));
                        this.pos += 4;
                        break;
                    default: sb.Append((char)e); break;
                }
                run = this.pos;
            }
        }
    }
}
