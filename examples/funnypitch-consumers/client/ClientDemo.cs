// FunnyPitch's Unity client, reduced to its use of the tables (README.md): loads the client's data the way a WebGL
// or Android build does (fetched bytes, Tables.LoadAsync) and walks the tables through typed references.
//   mono ClientDemo.exe <generated/data/csharp>
namespace FunnyPitch.Client
{
    using System;
    using System.IO;
    using System.Threading.Tasks;
    using FunnyPitch.GameConfig;

    internal static class ClientDemo
    {
        private static int Main(string[] args)
        {
            string dir = args[0];
            // In Unity: UnityWebRequest.Get(Application.streamingAssetsPath + "/GameConfig/" + file).
            Func<string, Task<byte[]>> fetch = file => Task.Run(() => File.ReadAllBytes(Path.Combine(dir, file)));
            Tables tables;
            try
            {
                tables = Tables.LoadAsync(fetch).GetAwaiter().GetResult();
            }
            catch (GentableDataException e)
            {
                Console.Error.WriteLine("cannot load the tables: " + e.Message);
                return 1;
            }

            // Promotion recipes: From and To are the PieceType rows, not ids to look up.
            foreach (Upgrade u in tables.Upgrade.All)
            {
                Console.WriteLine("upgrade " + u.Id + ": " + u.FromRef.NameKeyRef.En + " (T" + u.FromRef.Tier + ") -> " + u.ToRef.NameKeyRef.En + " (T" + u.ToRef.Tier + ")");
            }

            // Each piece's move rules, and the direction each rule moves in.
            foreach (MovePiece m in tables.MovePiece.All)
            {
                Console.WriteLine("moves " + m.PieceRef.NameKeyRef.Zh + ": " + m.RulesRefs.Count + " rules, first " + m.RulesRefs[0].Id + " along " + m.RulesRefs[0].DirectionRef.Id);
            }

            // The initial layout, counted by tier through each cell's piece (empty cells have none).
            var tiers = new int[5];
            int empty = 0;
            foreach (InitPosition p in tables.InitPosition.All)
            {
                if (p.PieceRef == null) empty++;
                else tiers[p.PieceRef.Tier]++;
            }
            Console.WriteLine("layout: T0 " + tiers[0] + ", T1 " + tiers[1] + ", T2 " + tiers[2] + ", T3 " + tiers[3] + ", T4 " + tiers[4] + ", cells without a piece " + empty);

            // Special rules: which pieces they apply to, and their localized names.
            foreach (SpecialMove s in tables.SpecialMove.All)
            {
                string pieces = s.PiecesRefs.Count == 0 ? "every piece" : string.Join("/", System.Linq.Enumerable.Select(s.PiecesRefs, x => x.Id));
                Console.WriteLine("special " + s.Id + " (" + s.NameKeyRef.En + "): " + pieces + (s.TargetRef == null ? "" : ", target " + s.TargetRef.Id));
            }
            Console.WriteLine("spy: " + tables.Const.SpyRandomPieceRef.NameKeyRef.En + "; data files " + Tables.DataFiles.Count);
            return 0;
        }
    }
}
