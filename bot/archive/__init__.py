"""Campaign archives: a campaign (or a branch) exported to one file with its canon, scenes, knowledge and
voice, and imported back as a new campaign (`lorekeeper export | import`)."""
