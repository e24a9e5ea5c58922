from total_recall.surfaces.cli import main

if __name__ == "__main__":
    main()
